"""pred26b (issue 23, library precision): what a type test and a module constant tell.

- ``n if isinstance(n, int) else n.shape[d]`` (torch-einops-utils' ``repeat_interleave_to_match``):
  each branch of a conditional expression is read under its test's narrowing, as the body of an
  ``if`` statement already was; the body's ``n`` is an int, not the tensor an unannotated
  parameter may be, so ``len_t == len_target`` compares sizes and never reads tensor data.
- ``if DEBUG:`` / ``if cfg.DEBUG:`` tested directly in a function: in library mode the module
  constant as shipped decides the branch (before, only a flag an ``__init__`` stored from one).
- a module constant assigned from an earlier one (``SHOW_STATS = VERBOSE``, ``LOUD = not
  VERBOSE``) holds its value (before, unknown).

Each verdict beside torch's ``graph_breaks`` log (:func:`tests.torch_checks.logged_break_lines`):
VALID, library mode is silent and torch logs no break; INVALID, library mode reports and torch
breaks there.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

CONFIG = """\
DEBUG = False
TRACE = True
STORED = False
"""

SRC = """\
import torch
from torch import nn

from . import _config as cfg
from ._config import TRACE

VERBOSE = False
CHECKS = "off"
SHOW_STATS = VERBOSE
LOUD = not VERBOSE

cfg.STORED = True  # the package turns it on when imported


def default(v, d):
    return v if v is not None else d


def repeat_to_match(t, target, dim=0, target_dim=None):
    target_dim = default(target_dim, dim)
    len_t = t.shape[dim]
    len_target = target if isinstance(target, int) else target.shape[target_dim]
    if len_t == len_target:  # SIZES
        return t
    return t.repeat_interleave(len_target // len_t, dim=dim)  # REPEAT


def scaled(t, scale):
    factor = scale if isinstance(scale, float) else scale.sum()
    if factor > 0:  # SCALED
        return t * 2
    return t


def debug_mean(x):
    if cfg.DEBUG:
        print("mean", x.mean().item())  # DEBUG
    return x * 2


def verbose_mean(x):
    if VERBOSE:
        print("mean", x.mean().item())  # VERBOSE
    return x * 2


def shown_mean(x):
    if SHOW_STATS:
        print("mean", x.mean().item())  # SHOWN
    return x * 2


def loud_mean(x):
    if LOUD:
        print("mean", x.mean().item())  # LOUD
    return x * 2


def checked_mean(x):
    if CHECKS == "on":
        assert x.abs().max().item() < 1e4  # CHECKS
    return x * 2


def traced_mean(x):
    if TRACE:
        print("mean", x.mean().item())  # TRACE
    return x * 2


def stored_mean(x):
    if cfg.STORED:
        print("mean", x.mean().item())  # STORED
    return x * 2
"""

# entry -> (the marked lines it reaches, the call torch compiles on x)
VALID = {
    "repeat_to_match": ("SIZES", "REPEAT"),
    "debug_mean": ("DEBUG",),
    "verbose_mean": ("VERBOSE",),
    "checked_mean": ("CHECKS",),
    "shown_mean": ("SHOWN",),
}
INVALID = {
    "scaled": ("SCALED",),
    "traced_mean": ("TRACE",),
    "stored_mean": ("STORED",),
    "loud_mean": ("LOUD",),
}
ALL_MARKERS = (
    "SIZES",
    "REPEAT",
    "SCALED",
    "DEBUG",
    "VERBOSE",
    "CHECKS",
    "SHOWN",
    "LOUD",
    "TRACE",
    "STORED",
)


def _line(marker: str) -> int:
    return next(i for i, t in enumerate(SRC.splitlines(), 1) if t.endswith(f"# {marker}"))


def _library(tmp_path: Path, entries: list[str]) -> list[dict[str, Any]]:
    """Library mode on package ``mylib`` (``SRC`` in ``mylib/_ops.py``, ``CONFIG`` in
    ``mylib/_config.py``): its findings in ``_ops.py``."""
    from tests.cli_invoke import invoke

    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._ops import {', '.join(entries)}\n")
    (pkg / "_ops.py").write_text(SRC)
    (pkg / "_config.py").write_text(CONFIG)
    globs = [f"mylib.{e}" for e in entries]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nentries = " + json.dumps(globs) + "\n"
    )
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return [f for f in json.loads(out)["findings"] if f["path"].endswith("_ops.py")]


@pytest.mark.parametrize("entry", sorted(VALID))
def test_valid_entries_are_silent(tmp_path: Path, entry: str) -> None:
    lines = {f["line"] for f in _library(tmp_path, [entry])}
    assert not {_line(m) for m in VALID[entry]} & lines


@pytest.mark.parametrize("entry", sorted(INVALID))
def test_invalid_entries_stay_reported(tmp_path: Path, entry: str) -> None:
    lines = {f["line"] for f in _library(tmp_path, [entry])}
    assert {_line(m) for m in INVALID[entry]} <= lines


def test_model_files_keep_module_flag_branches(tmp_path: Path) -> None:
    # a training script may set the module's flag before it compiles the model
    from tests.cli_invoke import invoke

    src = "import torch\n\nDEBUG = False\n\n\ndef debug_mean(x):\n    if DEBUG:\n"
    src += "        print(x.mean().item())\n    return x * 2\n\n\n"
    src += "fn = torch.compile(debug_mean)\n"
    (tmp_path / "model.py").write_text(src)
    code, out, err = invoke(["check", "model.py", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    assert 8 in {f["line"] for f in json.loads(out)["findings"]}


def _load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``mylib`` built in memory, each module compiled under a ``<pred26b_...>`` file name."""
    from tests.torch_checks import in_memory_package

    pkg = in_memory_package(monkeypatch, "pred26bpkg", {"_config": CONFIG, "_ops": SRC})
    return pkg._ops  # type: ignore[attr-defined, no-any-return]


@pytest.mark.torch
@pytest.mark.parametrize("entry", sorted([*VALID, *INVALID]))
def test_torch_agrees(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    ops = _load(monkeypatch)
    fn = getattr(ops, entry)
    x = torch.randn(4, 3)
    if entry == "repeat_to_match":
        model = lambda t: fn(t, torch.randn(8, 3))  # noqa: E731
    elif entry == "scaled":
        model = lambda t: fn(t, torch.rand(3))  # noqa: E731
    else:
        model = fn
    got = logged_break_lines(model, x, "pred26b_ops")
    want = {_line(m) for m in INVALID[entry]} if entry in INVALID else set()
    assert got & {_line(m) for m in ALL_MARKERS} == want


def test_constant_of_a_constant() -> None:
    from compilelint.static.analysis.constants import module_constants

    src = b"""\
DEBUG = False
SHOWN = DEBUG
FAST = not DEBUG
AGAIN = SHOWN
EARLY = LATER
LATER = True
TWICE = False
ALIASED = TWICE
TWICE = True
COPIED = os.sep
"""
    got = module_constants(None, {}, src)["module_consts"]
    assert got == {"DEBUG": False, "SHOWN": False, "FAST": True, "AGAIN": False, "LATER": True}
