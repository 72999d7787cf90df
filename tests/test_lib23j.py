"""Issue 23, round lib23j: a function's call of itself in a branch its callers' values refute.

entmax's ``sparsemax(X, dim=-1, k=None)`` reaches ``_sparsemax_threshold_and_support(X, dim, k)``,
which sorts partially only where ``k`` is given and then calls itself on the unsolved rows with
``k=2 * k``, under ``if k is not None and k < X.shape[dim]:`` and ``if torch.any(unsolved):``.
The recursive call's value (``2 * k``, unknown) made ``k`` unknown, so the branch that holds the
call could not be refuted by the very values (``None`` from every other caller) that make it
dead: ``if torch.any(unsolved):``, the mask index after it and a CL304 on ``k`` were reported on
every entry's defaults (6 findings on the dev4 probe; torch breaks at none of them there). A
recursive call under conditions now counts after the others: where the values of the other
sites (the first frame's) refute its conditions, no frame makes it.

Each static verdict comes with torch's own (``tests/torch_checks.py``, marked ``torch``).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from tests.cli_invoke import invoke

LIB = """\
import torch
from torch.autograd import Function


def threshold(X, dim=-1, k=None):
    if k is not None and k < X.shape[dim]:
        unsolved = X.sum(dim) > 0
        if torch.any(unsolved):
            X = threshold(X * 2, dim=dim, k=2 * k)
    return X


class Sparse(Function):
    @staticmethod
    def forward(ctx, X, dim=-1, k=None):
        return threshold(X, dim=dim, k=k)

    @staticmethod
    def backward(ctx, g):
        return g, None, None


class Classy(Function):
    @classmethod
    def forward(cls, ctx, X, dim=-1, k=None):
        return threshold(X, dim=dim, k=k)

    @classmethod
    def backward(cls, ctx, g):
        return g, None, None


def direct(X, dim=-1, k=None):
    return threshold(X, dim, k)


def through_apply(X, dim=-1, k=None):
    return Sparse.apply(X, dim, k)


def through_classmethod(X, dim=-1, k=None):
    return Classy.apply(X, dim, k)


def _twice(x, k=None):
    if k is not None:
        x = x * float(x.sum().item())
    if k is None:
        x = _twice(x, k=3)
    return x


def twice(x):
    return _twice(x)


def given(X):
    return threshold(X, k=3)
"""
ANY_LINE, TWICE_LINE = 8, 47


def _lines(tmp_path: Path, entries: list[str]) -> set[int]:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._ops import {', '.join(entries)}\n")
    (pkg / "_ops.py").write_text(LIB)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nentries = " + json.dumps([f"mylib.{e}" for e in entries]) + "\n"
    )
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    return {f["line"] for f in json.loads(out)["findings"] if f["path"].endswith("_ops.py")}


def test_the_lines_are_where_the_tests_say() -> None:
    lines = LIB.splitlines()
    assert lines[ANY_LINE - 1].strip() == "if torch.any(unsolved):"
    assert lines[TWICE_LINE - 1].strip() == "x = x * float(x.sum().item())"


@pytest.mark.parametrize("entry", ["direct", "through_apply", "through_classmethod"])
def test_a_recursive_call_its_callers_refute_adds_no_value(tmp_path: Path, entry: str) -> None:
    # VALID: every entry leaves `k` at None, so `if k is not None ...` never runs, nor the
    # recursive call under it: `k` is None in every frame and the branch is dead
    assert _lines(tmp_path, [entry]) == set()


def test_a_caller_that_passes_a_value_keeps_the_branch(tmp_path: Path) -> None:
    # INVALID: `given` passes k=3, so the first frame may run the branch (and the recursion)
    assert ANY_LINE in _lines(tmp_path, ["direct", "given"])


def test_a_recursive_call_the_first_frame_makes_counts(tmp_path: Path) -> None:
    # INVALID: `twice` calls `_twice` with k=None, whose frame makes the recursive call
    # (`k is None` holds), which passes k=3: the next frame runs `.item()`
    assert TWICE_LINE in _lines(tmp_path, ["twice"])


def _module(name: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(LIB, f"<{name}>", "exec"), mod.__dict__)
    return mod


@pytest.mark.torch
@pytest.mark.parametrize(
    ("entry", "want"),
    [
        ("direct", set()),
        ("through_apply", set()),
        ("through_classmethod", set()),
        ("given", {ANY_LINE}),
        ("twice", {TWICE_LINE}),
    ],
)
def test_torch_agrees_on_the_recursive_branch(
    monkeypatch: pytest.MonkeyPatch, entry: str, want: set[int]
) -> None:
    # under the defaults torch never enters the branch (no break); k=3 breaks on
    # `torch.any(unsolved)`, and `_twice`'s second frame on `.item()`
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23j_ops"
    mod = _module(name, monkeypatch)
    x = torch.randn(4, 6).abs()
    assert logged_break_lines(getattr(mod, entry), x, name) & {ANY_LINE, TWICE_LINE} == want
