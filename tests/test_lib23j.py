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


def _lines(
    tmp_path: Path, entries: list[str], src: str = LIB, exports: list[str] | None = None
) -> set[int]:
    """Library mode on package ``mylib`` (``src`` in ``mylib/_ops.py``, exporting ``exports``,
    ``entries`` by default): the lines of ``_ops.py`` reported. An entry ending in ``.*`` is
    a class (its ``forward``)."""
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    names = exports or [e.removesuffix(".*") for e in entries]
    (pkg / "__init__.py").write_text(f"from ._ops import {', '.join(names)}\n")
    (pkg / "_ops.py").write_text(src)
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


def _module(name: str, monkeypatch: pytest.MonkeyPatch, src: str = LIB) -> types.ModuleType:
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
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


# ------------------------------------- a mode string normalised in a base's `__init__`
# torch-kmeans: `KMeans.__init__` stores `self.init_method = init_method.lower()`; the entry
# classes build it directly or through `super(SoftKMeans, self).__init__(init_method=init_method,
# ...)`, and the exported `ConstrainedKMeans` (not an entry, built nowhere) names itself only in
# `super(ConstrainedKMeans, self)`. Under the defaults `init_method` is "rnd", so the
# "k-means++" initialisation (`.item()`, `torch.Generator`, `torch.multinomial`) never runs.
KMEANS = """\
import torch
from torch import nn


class KMeans(nn.Module):
    def __init__(self, init_method: str = "rnd", num_init: int = 8):
        super(KMeans, self).__init__()
        self.init_method = init_method.lower()
        self.num_init = num_init

    def forward(self, x):
        return self._center_init(x)

    def _center_init(self, x):
        if self.init_method == "rnd":
            return x * 2
        elif self.init_method == "k-means++":
            return self._init_plus(x)
        raise ValueError(self.init_method)

    def _init_plus(self, x):
        k = int(x.sum().item())
        return x * k


class SoftKMeans(KMeans):
    def __init__(self, init_method: str = "{soft}", temp: float = 5.0):
        super(SoftKMeans, self).__init__(init_method=init_method, num_init=1)
        self.temp = temp


class ConstrainedKMeans(KMeans):
    def __init__(self, init_method: str = "rnd", trials: int = 5):
        super(ConstrainedKMeans, self).__init__(init_method=init_method)
        self.trials = trials
{extra}"""
ITEM_LINE = 22
MAKE = """

def make():
    return ConstrainedKMeans(init_method="k-means++")
"""
NAMES = """

def registry():
    return {"constrained": ConstrainedKMeans}
"""
KM_ENTRIES = ["KMeans.*", "SoftKMeans.*"]
KM_EXPORTS = ["KMeans", "SoftKMeans", "ConstrainedKMeans"]


def _km(soft: str = "rnd", extra: str = "") -> str:
    return KMEANS.format(soft=soft, extra=extra)


def test_the_item_line_is_where_the_tests_say() -> None:
    assert _km().splitlines()[ITEM_LINE - 1].strip() == "k = int(x.sum().item())"


def test_a_lowered_mode_handed_through_super_decides_the_branch(tmp_path: Path) -> None:
    # VALID: "rnd".lower() is "rnd" for both entry classes (SoftKMeans passes its own default
    # on), and ConstrainedKMeans is only named by its own `super(...)` call
    assert _lines(tmp_path, KM_ENTRIES, _km(), KM_EXPORTS) == set()


def test_a_lowered_mode_that_selects_the_branch_is_reported(tmp_path: Path) -> None:
    # INVALID: SoftKMeans's default "K-Means++" lowers to "k-means++"
    assert ITEM_LINE in _lines(tmp_path, KM_ENTRIES, _km(soft="K-Means++"), KM_EXPORTS)


def test_a_class_the_package_builds_with_the_mode_is_reported(tmp_path: Path) -> None:
    # INVALID: the package builds ConstrainedKMeans(init_method="k-means++")
    src = _km(extra=MAKE)
    assert ITEM_LINE in _lines(tmp_path, [*KM_ENTRIES, "make"], src, [*KM_EXPORTS, "make"])


def test_a_class_named_outside_super_keeps_its_constructions_unknown(tmp_path: Path) -> None:
    # INVALID: a function hands ConstrainedKMeans on (a registry): who builds it, with what, is
    # not known, so the branch stays
    src = _km(extra=NAMES)
    got = _lines(tmp_path, [*KM_ENTRIES, "registry"], src, [*KM_EXPORTS, "registry"])
    assert ITEM_LINE in got


@pytest.mark.torch
@pytest.mark.parametrize(
    ("soft", "build", "want"),
    [
        ("rnd", "KMeans", set()),
        ("rnd", "SoftKMeans", set()),
        ("K-Means++", "SoftKMeans", {ITEM_LINE}),
        ("rnd", "make", {ITEM_LINE}),
        ("rnd", "registry", {ITEM_LINE}),
    ],
)
def test_torch_agrees_on_the_lowered_mode(
    monkeypatch: pytest.MonkeyPatch, soft: str, build: str, want: set[int]
) -> None:
    # the defaults never run `_init_plus` (no break); "k-means++" breaks on `.item()`
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23j_km"
    mod = _module(name, monkeypatch, _km(soft=soft, extra=MAKE + NAMES))
    if build == "registry":
        model = mod.registry()["constrained"](init_method="k-means++")
    else:
        model = getattr(mod, build)()
    assert logged_break_lines(model, torch.randn(4, 2), name) & {ITEM_LINE} == want


BASE = """\
import torch
from torch import nn


class KMeans(nn.Module):
    def __init__(self, init_method: str = "rnd"):
        super().__init__()
        self.init_method = {store}

    def forward(self, x):
        if self.init_method == "k-means++":
            x = x * int(x.sum().item())
        return x
{sub}"""
BASE_ITEM = 12
FORWARDS = """

class SoftKMeans(KMeans):
    def __init__(self, init_method: str = "rnd", temp: float = 5.0):
        super().__init__(init_method=init_method)
        self.temp = temp
"""
NAMED = """

class ConstrainedKMeans(KMeans):
    def __init__(self, init_method: str = "k-means++", trials: int = 5):
        super(ConstrainedKMeans, self).__init__(init_method=init_method)
        self.trials = trials
"""


@pytest.mark.parametrize(
    ("store", "sub", "entries", "exports"),
    [
        # the string method alone; the subclass's own parameter passed on through `super()`;
        # with it, a class named only by its own `super(Cls, self)` call and built nowhere
        # (its "k-means++" default is no construction of this judgement)
        ("init_method.lower()", "", ["KMeans.*"], ["KMeans"]),
        ("init_method", FORWARDS, ["KMeans.*", "SoftKMeans.*"], ["KMeans", "SoftKMeans"]),
        ("init_method", NAMED, ["KMeans.*"], ["KMeans", "ConstrainedKMeans"]),
    ],
)
def test_each_piece_decides_the_branch(
    tmp_path: Path, store: str, sub: str, entries: list[str], exports: list[str]
) -> None:
    src = BASE.format(store=store, sub=sub)
    assert src.splitlines()[BASE_ITEM - 1].strip() == "x = x * int(x.sum().item())"
    assert _lines(tmp_path, entries, src, exports) == set()


@pytest.mark.parametrize(
    ("store", "sub"),
    [
        ('init_method.replace("rnd", "k-means++")', ""),  # a method with arguments: unknown
        ("init_method.lower()", FORWARDS.replace('"rnd"', '"K-MEANS++"')),
        ("init_method", NAMED),  # built by the package (`make()`) with its default
    ],
)
def test_each_piece_keeps_a_branch_its_values_reach(tmp_path: Path, store: str, sub: str) -> None:
    src = BASE.format(store=store, sub=sub)
    exports = ["KMeans", *(["SoftKMeans"] if "SoftKMeans" in sub else [])]
    exports += ["ConstrainedKMeans"] if "ConstrainedKMeans" in sub else []
    entries = [f"{e}.*" for e in exports if e != "ConstrainedKMeans"]
    if "ConstrainedKMeans" in sub:
        src += "\n\ndef make():\n    return ConstrainedKMeans()\n"
        exports.append("make")
        entries.append("make")
    assert BASE_ITEM in _lines(tmp_path, entries, src, exports)


@pytest.mark.torch
@pytest.mark.parametrize(
    ("store", "build", "want"),
    [
        ("init_method.lower()", "KMeans", set()),
        ("init_method", "SoftKMeans", set()),
        ('init_method.replace("rnd", "k-means++")', "KMeans", {BASE_ITEM}),
        ("init_method", "ConstrainedKMeans", {BASE_ITEM}),
    ],
)
def test_torch_agrees_on_each_piece(
    monkeypatch: pytest.MonkeyPatch, store: str, build: str, want: set[int]
) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23j_base"
    mod = _module(name, monkeypatch, BASE.format(store=store, sub=FORWARDS + NAMED))
    model = getattr(mod, build)()
    assert logged_break_lines(model, torch.randn(4, 2), name) & {BASE_ITEM} == want


FORWARDED = """\
import torch


def helper(x, k=None):
    if k is not None:
        x = x * float(x.sum().item())
    return x


def rec(x, k=None, depth=0):
    x = helper(x, k=k)
    if depth == 0 and k is None:
        x = rec(x, k=3, depth=1)
    return x


def entry(x):
    return rec(x)
"""
FORWARDED_ITEM = 6


def test_a_live_recursive_call_reaches_what_its_parameter_is_passed_to(tmp_path: Path) -> None:
    # INVALID: the first frame (k=None, depth=0) makes the recursive call, whose k=3 `helper`
    # receives: its `.item()` stays (values computed while testing the recursive call against
    # the first frame's values are not kept)
    assert FORWARDED.splitlines()[FORWARDED_ITEM - 1].strip() == "x = x * float(x.sum().item())"
    assert FORWARDED_ITEM in _lines(tmp_path, ["entry"], FORWARDED)


@pytest.mark.torch
def test_torch_agrees_on_the_live_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23j_fwd"
    mod = _module(name, monkeypatch, FORWARDED)
    assert logged_break_lines(mod.entry, torch.randn(4), name) & {FORWARDED_ITEM} == {
        FORWARDED_ITEM
    }
