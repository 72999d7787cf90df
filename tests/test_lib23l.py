"""lib23l: code only a distributed run reaches is latent in library mode.

A user's first call of a library's entry point runs in one process: no process group is
initialised, so ``torch.distributed.is_initialized()`` is False and a helper returning it
(``def is_distributed(): return dist.is_initialized() and dist.get_world_size() > 1``) is
False too. A flag an ``__init__`` stores from its parameter and, where that is None, computes
from such a test (soft-moe's and st-moe's ``Experts.is_distributed``) holds False under the
defaults, and a ``forward`` parameter re-bound by ``default(is_distributed,
self.is_distributed)`` holds it where the caller passes nothing. Each verdict beside torch's
``graph_breaks`` log (:func:`tests.torch_checks.logged_break_lines`): VALID, library mode is
silent and torch logs no break; INVALID, library mode reports and torch breaks there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SRC = """\
import torch
import torch.distributed as dist
from torch import nn


def exists(v):
    return v is not None


def default(v, d):
    if exists(v):
        return v
    return d() if callable(d) else d


def is_distributed():
    return dist.is_initialized() and dist.get_world_size() > 1


def synced(x):
    if is_distributed():
        n = x.sum().item()  # SYNCED
        return x / n
    return x


def direct(x):
    if torch.distributed.is_initialized():
        n = x.sum().item()  # DIRECT
        return x / n
    return x


def single(x):
    if not dist.is_initialized():
        n = x.sum().item()  # SINGLE
        return x / n
    return x


class Experts(nn.Module):
    def __init__(self, is_distributed=None):
        super().__init__()
        self.is_distributed = is_distributed
        if not exists(self.is_distributed):
            self.is_distributed = dist.is_initialized() and dist.get_world_size() > 1

    def forward(self, x, is_distributed=None):
        is_distributed = default(is_distributed, self.is_distributed)
        if is_distributed:
            n = x.sum().item()  # EXPERTS
            x = x / n
        return x * 2


class Forced(nn.Module):
    def __init__(self, is_distributed=True):
        super().__init__()
        self.is_distributed = is_distributed
        if not exists(self.is_distributed):
            self.is_distributed = dist.is_initialized() and dist.get_world_size() > 1

    def forward(self, x, is_distributed=None):
        is_distributed = default(is_distributed, self.is_distributed)
        if is_distributed:
            n = x.sum().item()  # FORCED
            x = x / n
        return x * 2


class Asked(nn.Module):
    def __init__(self, is_distributed=None):
        super().__init__()
        self.is_distributed = is_distributed
        if not exists(self.is_distributed):
            self.is_distributed = dist.is_initialized() and dist.get_world_size() > 1

    def forward(self, x, is_distributed=True):
        is_distributed = default(is_distributed, self.is_distributed)
        if is_distributed:
            n = x.sum().item()  # ASKED
            x = x / n
        return x * 2


class Flag:
    def is_initialized(self):
        return True


def shadowed(x, dist=Flag()):
    if dist.is_initialized():
        n = x.sum().item()  # SHADOWED
        return x / n
    return x
"""

VALID = ("synced", "direct", "Experts")
INVALID = ("single", "Forced", "Asked", "shadowed")


def _line(marker: str) -> int:
    return next(i for i, t in enumerate(SRC.splitlines(), 1) if t.endswith(f"# {marker}"))


def _library(
    tmp_path: Path, entries: list[str], *extra: str, src: str = SRC
) -> list[dict[str, Any]]:
    """Library mode on package ``mylib`` (``src`` in ``mylib/_ops.py``): its findings there."""
    from tests.cli_invoke import invoke

    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._ops import {', '.join(entries)}\n")
    (pkg / "_ops.py").write_text(src)
    # a class's methods by the exporting module's name, a function by its qualified name (the
    # broad model of --report-untraced matches that)
    globs = [f"mylib.{e}.*" if e[0].isupper() else e for e in entries]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nentries = " + json.dumps(globs) + "\n"
    )
    code, out, err = invoke(
        ["check", "mylib", "--format", "json", "--no-cache", *extra], cwd=tmp_path
    )
    assert code in (0, 1), err
    return [f for f in json.loads(out)["findings"] if f["path"].endswith("_ops.py")]


def _marker(entry: str) -> str:
    return entry.upper()


@pytest.mark.parametrize("entry", VALID)
def test_distributed_only_code_is_latent(tmp_path: Path, entry: str) -> None:
    # VALID: no process group under a user's first call, torch never runs the `.item()`
    lines = {f["line"] for f in _library(tmp_path, [entry])}
    assert _line(_marker(entry)) not in lines


@pytest.mark.parametrize("entry", VALID)
def test_distributed_only_code_is_shown_with_report_untraced(tmp_path: Path, entry: str) -> None:
    got = [
        f
        for f in _library(tmp_path, [entry], "--report-untraced")
        if f["line"] == _line(_marker(entry))
    ]
    assert got and all("latent" in f["message"] for f in got)


@pytest.mark.parametrize("entry", INVALID)
def test_code_a_single_process_runs_stays_reported(tmp_path: Path, entry: str) -> None:
    # INVALID: `not dist.is_initialized()` holds; the user's flag (a constructor's or a
    # forward's default) asks for the branch; a parameter named `dist` is not the module
    lines = {f["line"] for f in _library(tmp_path, [entry])}
    assert _line(_marker(entry)) in lines


def test_all_entries_together(tmp_path: Path) -> None:
    lines = {f["line"] for f in _library(tmp_path, [*VALID, *INVALID])}
    assert {_line(_marker(e)) for e in INVALID} <= lines
    assert not {_line(_marker(e)) for e in VALID} & lines


def test_model_files_keep_the_distributed_branch(tmp_path: Path) -> None:
    # a model file may be compiled inside a DDP run: its distributed branch stays a finding
    from tests.cli_invoke import invoke

    src = SRC + "\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return synced(x)\n"
    (tmp_path / "model.py").write_text(src)
    code, out, err = invoke(["check", "model.py", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    lines = {f["line"] for f in json.loads(out)["findings"]}
    assert _line("SYNCED") in lines


def test_helper_forms() -> None:
    import libcst as cst

    from compilelint.static.analysis import conds as C

    def fn(text: str) -> cst.FunctionDef:
        node = cst.parse_module(text).body[0]
        assert isinstance(node, cst.FunctionDef)
        return node

    none = {"exists": "isnot"}.get
    assert C.default_function(fn("def d(v, x):\n    return v if exists(v) else x\n"), none)
    assert C.default_function(fn("def d(v, x):\n    return x if v is None else v\n"), none)
    assert C.default_function(
        fn(
            "def d(v, x):\n    if exists(v):\n        return v\n    return x() if callable(x) else x\n"
        ),
        none,
    )
    # the other way round, or a third statement: not a default helper
    assert not C.default_function(fn("def d(v, x):\n    return x if exists(v) else v\n"), none)
    assert not C.default_function(
        fn("def d(v, x):\n    if exists(v):\n        return v\n    x = x + 1\n    return x\n"), none
    )
    assert (
        C.distributed_test_function(
            fn("def f():\n    return dist.is_initialized() and dist.get_world_size() > 1\n")
        )
        == "dist:dist"
    )
    assert (
        C.distributed_test_function(
            fn(
                "def f():\n    return torch.distributed.is_available() and torch.distributed.is_initialized()\n"
            )
        )
        == "dist:torch.distributed"
    )
    # `or`: true in one process too
    assert (
        C.distributed_test_function(fn("def f():\n    return dist.is_initialized() or True\n"))
        is None
    )
    assert C.distributed_test_function(fn("def f(g):\n    return g.is_initialized()\n")) is None


@pytest.mark.torch
@pytest.mark.parametrize("entry", [*VALID, *INVALID])
def test_torch_agrees(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    # torch (one process, no process group) logs the `.item()` break exactly for the INVALID
    # entries
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23l_dist"
    mod = ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(SRC, f"<{name}>", "exec"), mod.__dict__)
    assert not torch.distributed.is_initialized()
    obj = getattr(mod, entry)
    model = obj() if entry[0].isupper() else obj
    got = logged_break_lines(model, torch.randn(4, 3), name)
    want = {_line(_marker(entry))} if entry in INVALID else set()
    assert got & {_line(_marker(e)) for e in (*VALID, *INVALID)} == want


# A parameter re-bound only under conditions (`if exists(lens): mask = ...`) and passed on
# (`_pick(x, mask=mask)`, or through a keyword dict): the callee's parameter holds the caller's
# callers' values where each re-binding is dead code under them (vector-quantize-pytorch's
# `VectorQuantize.forward` -> `Codebook.forward` -> `init_embed_(flatten, mask=mask)`).
GUARDED = """\
import torch


def exists(v):
    return v is not None


def lens_to_mask(lens, x):
    return x[:, 0] > lens


def _pick(x, mask=None):
    if exists(mask):
        print("masked")  # QUANTIZE
        x = x * mask[:, None]
    return x * 2


def _pick_kw(x, mask=None):
    if exists(mask):
        print("masked")  # QUANTIZE_KW
        x = x * mask[:, None]
    return x * 2


def _pick_lens(x, mask=None):
    if exists(mask):
        print("masked")  # QUANTIZE_LENS
        x = x * mask[:, None]
    return x * 2


def _pick_lens_kw(x, mask=None):
    if exists(mask):
        print("masked")  # QUANTIZE_LENS_KW
        x = x * mask[:, None]
    return x * 2


def quantize(x, mask=None, lens=None):
    if exists(lens):
        mask = lens_to_mask(lens, x)
    return _pick(x, mask=mask)


def quantize_kw(x, mask=None, lens=None):
    if exists(lens):
        mask = lens_to_mask(lens, x)
    kw = dict(mask=mask)
    return _pick_kw(x, **kw)


def quantize_lens(x, mask=None, lens=0.0):
    if exists(lens):
        mask = lens_to_mask(lens, x)
    return _pick_lens(x, mask=mask)


def quantize_lens_kw(x, mask=None, lens=0.0):
    if exists(lens):
        mask = lens_to_mask(lens, x)
    kw = dict(mask=mask)
    return _pick_lens_kw(x, **kw)
"""
GUARDED_VALID = ("quantize", "quantize_kw")
GUARDED_INVALID = ("quantize_lens", "quantize_lens_kw")


def _gline(entry: str) -> int:
    return next(
        i for i, t in enumerate(GUARDED.splitlines(), 1) if t.endswith(f"# {entry.upper()}")
    )


def test_guarded_parameter_passed_on_under_refuted_guards(tmp_path: Path) -> None:
    # VALID: `lens` is None under the defaults, `mask` stays the caller's None: the callee's
    # `if exists(mask):` never runs; INVALID: `lens=0.0` builds a mask, the callee prints
    lines = {f["line"] for f in _library(tmp_path, [*GUARDED_VALID, *GUARDED_INVALID], src=GUARDED)}
    assert {_gline(e) for e in GUARDED_INVALID} <= lines
    assert not {_gline(e) for e in GUARDED_VALID} & lines


@pytest.mark.torch
@pytest.mark.parametrize("entry", [*GUARDED_VALID, *GUARDED_INVALID])
def test_torch_agrees_on_guarded_parameters(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23l_guarded"
    mod = ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(GUARDED, f"<{name}>", "exec"), mod.__dict__)
    got = logged_break_lines(getattr(mod, entry), torch.randn(4, 3), name)
    want = {_gline(entry)} if entry in GUARDED_INVALID else set()
    assert got & {_gline(e) for e in (*GUARDED_VALID, *GUARDED_INVALID)} == want
