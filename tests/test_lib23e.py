"""Issue 23, round lib23e: what an untraced ``__init__`` builds, and calls that are not virtual.

- An ``__init__`` parameter of a class the project builds holds what those constructions pass
  (``self._codebook = codebook_class(**codebook_kwargs)`` in an entry class's ``__init__``,
  vector-quantize-pytorch's ``Codebook`` under ``VectorQuantize``'s ``threshold_ema_dead_code=0``),
  so a flag computed from it (``self.has_dead_code_replacement = threshold > 0``) is decided.
- ``super().meth(...)`` runs the method the MRO after the calling class gives, never an override
  in a sibling subclass (gpytorch's ``Mean.__call__`` does not run ``Kernel.__call__``), and an
  explicit ``self.base.forward(...)`` runs no ``__call__``.

Each static verdict comes with torch's own (``tests/torch_checks.py``, marked ``torch``).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tests.cli_invoke import invoke
from tests.test_follow import make_env
from tests.torch_checks import assert_no_graph_break

# --------------------------------------------------------------------------- constructions
CODEBOOK = """\
import torch


class Codebook(torch.nn.Module):
    def __init__(self, dim, threshold=2, scale=1.0):
        super().__init__()
        self.expire = threshold > 0
        self.scale = scale

    def forward(self, x):
        if self.expire:
            x = x * x.sum().item()
        return x * self.scale


class VQ(torch.nn.Module):
    def __init__(self, dim=4, threshold={default}, affine=False):
        super().__init__()
        codebook_class = Codebook
        kw = dict(dim=dim, threshold=threshold)
        if affine:
            kw = dict(**kw, scale=2.0)
        self._codebook = codebook_class(**kw)

    def forward(self, x):
        return self._codebook(x)
"""
ITEM_LINE = 12  # `x = x * x.sum().item()`


def _library_mode_lines(tmp_path: Path, src: str) -> set[int]:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._ops import VQ\n")
    (pkg / "_ops.py").write_text(src)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"]}


def test_library_mode_a_held_object_built_in_init_takes_the_constructions_values(
    tmp_path: Path,
) -> None:
    # VALID: the entry `VQ` builds its codebook with `threshold=0` (its default, through a
    # keyword dict and a local name for the class): `self.expire` is False, nothing breaks
    assert _library_mode_lines(tmp_path, CODEBOOK.format(default=0)) == set()


def test_library_mode_a_construction_that_passes_a_true_flag_keeps_the_finding(
    tmp_path: Path,
) -> None:
    # INVALID: under `threshold=1` the codebook reads `.item()`
    assert _library_mode_lines(tmp_path, CODEBOOK.format(default=1)) == {ITEM_LINE}


def test_a_class_also_named_without_a_call_has_constructions_not_known(tmp_path: Path) -> None:
    # INVALID: a function hands the class on (a factory list): whoever calls it may build the
    # codebook under its own default `threshold=2`, so the flag is not decided
    src = CODEBOOK.format(default=0) + "\n\ndef kinds():\n    return [Codebook]\n"
    assert _library_mode_lines(tmp_path, src) == {ITEM_LINE}


def test_following_a_user_model_decides_the_held_objects_flag(tmp_path: Path) -> None:
    """From a user file: the user's `__init__` builds the library class with literals, which
    reach the class the library's own `__init__` builds (two untraced constructions)."""
    venv = make_env(tmp_path, tmp_path / "imported.txt")
    site = venv / "lib" / "python3.11" / "site-packages" / "fakelib"
    (site / "vq.py").write_text(CODEBOOK.format(default=0))
    proj = tmp_path / "proj"
    proj.mkdir()

    def lines(args: str) -> set[int]:
        (proj / "model.py").write_text(
            "import torch\nfrom fakelib.vq import VQ\n\n\n"
            "class Model(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            f"        self.vq = VQ({args})\n\n"
            "    def forward(self, x):\n"
            "        return self.vq(x)\n"
        )
        code, out, err = invoke(
            ["check", ".", "--format", "json", "--no-cache", "--python", str(venv)], cwd=proj
        )
        assert code in (0, 1), err
        return {f["frames"][-1]["line"] for f in json.loads(out)["findings"] if f["frames"]}

    assert lines("4") == set()  # VALID: threshold left at VQ's 0
    assert lines("4, threshold=3") == {ITEM_LINE}  # INVALID: the user turns expiry on


def _module(name: str, src: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The library source as a module (importable by name while the test runs: dynamo
    looks its globals' module up)."""
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    return mod


@pytest.mark.torch
def test_torch_agrees_on_the_constructions(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    mod = _module("lib23e_vq", CODEBOOK.format(default=0), monkeypatch)
    x = torch.randn(3, 4)
    assert_no_graph_break(mod.VQ(), (x,))  # VALID: built as the entry's default builds it
    with pytest.raises(AssertionError):
        assert_no_graph_break(mod.Codebook(4), (x,))  # INVALID: Codebook's own default


# --------------------------------------------------------------------------- not virtual
KERNELS = """\
import warnings

import torch


class Base(torch.nn.Module):
    def __call__(self, x, flag=False):
        return super().__call__(x)


class Kernel(Base):
    def __call__(self, x, warn=False):
        if warn:
            warnings.warn("deprecated")
        return super().__call__(x)

    def forward(self, x, warn=False):
        return x * 2


class Mean(Base):
    def __call__(self, x):
        return super().__call__(x, True)

    def forward(self, x):
        return x + 1
"""
WARN_LINE = 14  # `warnings.warn("deprecated")`

SCALE = """\
from .kernels import Kernel


class Scale(Kernel):
    def __init__(self, base: Kernel):
        super().__init__()
        self.base = base

    def forward(self, x, warn=False):
        return self.base.forward(x, warn=True) * 3
"""

USER = """\
import torch
from fakelib.kernels import Kernel, Mean
from fakelib.scale import Scale


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = Scale(Kernel())
        self.m = Mean()

    def forward(self, x):
        return self.k(x) + self.m(x)
"""


def test_super_calls_and_explicit_forward_are_not_virtual(tmp_path: Path) -> None:
    """VALID: `Mean.__call__`'s `super().__call__(x, True)` runs `Base.__call__`, not the
    sibling `Kernel.__call__` with `warn=True`; `self.base.forward(x, warn=True)` (a held
    object of a class another module defines) runs `Kernel.forward`, not `Kernel.__call__`:
    the warning is never reached."""
    venv = make_env(tmp_path, tmp_path / "imported.txt")
    site = venv / "lib" / "python3.11" / "site-packages" / "fakelib"
    (site / "kernels.py").write_text(KERNELS)
    (site / "scale.py").write_text(SCALE)
    proj = tmp_path / "proj"
    proj.mkdir()

    def lines(user: str) -> set[int]:
        (proj / "model.py").write_text(user)
        code, out, err = invoke(
            ["check", ".", "--format", "json", "--no-cache", "--python", str(venv)], cwd=proj
        )
        assert code in (0, 1), err
        return {f["frames"][-1]["line"] for f in json.loads(out)["findings"] if f["frames"]}

    assert lines(USER) == set()
    # INVALID: the module call itself passes `warn=True` to `Kernel.__call__`
    assert lines(USER.replace("self.k(x) +", "self.k(x, warn=True) +")) == {WARN_LINE}


@pytest.mark.torch
def test_torch_agrees_super_calls_are_not_virtual(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    import torch

    mod: Any = _module("lib23e_kernels", KERNELS, monkeypatch)
    mod.Scale = _module(
        "lib23e_scale",
        SCALE.replace("from .kernels import", "from lib23e_kernels import"),
        monkeypatch,
    ).Scale

    class Model(torch.nn.Module):
        def __init__(self, warn: bool) -> None:
            super().__init__()
            self.k = mod.Scale(mod.Kernel())
            self.m = mod.Mean()
            self.warn = warn

        def forward(self, x: object) -> object:
            return self.k(x, warn=self.warn) + self.m(x)

    x = torch.randn(3, 4)
    assert_no_graph_break(Model(False), (x,))  # VALID
    with pytest.raises(AssertionError):
        assert_no_graph_break(Model(True), (x,))  # INVALID: the warning breaks the graph
