"""lib23k: the probe's second-call labels (recompiles torch reports on a user's loop).

``benchmarks/libmode_probe.py label --recompiles`` calls each entry a second time on the same
object with new random inputs of the same shapes (and a third time with one more row where it
has batched inputs) under the dynamic stage, and keeps the recompile lines torch names (the
innermost frame inside the package). These tests run that labelling on tiny packages written to
a temporary folder: an entry that recompiles on the second call is labelled with the line torch
names, one that does not is not.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("torch")

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"

COUNTER = """\
import torch


class Counter(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.calls
"""

PLAIN = """\
import torch


def scaled(x, factor=2.0):
    return torch.sin(x) * factor
"""

ROWS = """\
import torch


def mean_rows(x):
    n = x.shape[0]
    y = x.sum(0)
    torch._dynamo.graph_break()
    return y / n
"""


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[tuple[ModuleType, Path]]:
    site = tmp_path / "site-packages"  # an installed package, as the probe's are
    pkg = site / "tinyrec"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "counter.py").write_text(COUNTER)
    (pkg / "plain.py").write_text(PLAIN)
    (pkg / "rows.py").write_text(ROWS)
    sys.path.insert(0, str(site))
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("libmode_probe"), site
    finally:
        sys.path.remove(str(site))
        sys.path.remove(str(BENCH))
        for m in [m for m in sys.modules if m == "tinyrec" or m.startswith("tinyrec.")]:
            del sys.modules[m]


def _line(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_recompiling_entry_is_labelled_with_the_line_torch_names(
    probe: tuple[ModuleType, Path],
) -> None:
    lp, site = probe

    def build() -> Any:
        torch = lp._t()
        from tinyrec.counter import Counter

        return Counter(), (torch.randn(4),)

    rec = lp.observe_calls(build, str(site), "tinyrec/")
    assert rec["error"] is None
    assert rec["calls"] == ["first", "new inputs, same shapes"]  # a vector: no second size
    assert rec["breaks"] == []
    # torch guards on `self.calls` (an int attribute the forward changes) and recompiles on the
    # second call; the recompile is named inside the package
    assert rec["recompile_count"] and rec["recompile_count"] >= 1
    assert rec["recompiles"], rec["records"]
    assert rec["recompiles"] == [("tinyrec/counter.py", _line(COUNTER, "self.calls += 1"))]


def test_entry_that_does_not_recompile_is_not_labelled(probe: tuple[ModuleType, Path]) -> None:
    lp, site = probe

    def build() -> Any:
        torch = lp._t()
        from tinyrec.plain import scaled

        return scaled, (torch.randn(4),)

    rec = lp.observe_calls(build, str(site), "tinyrec/")
    assert rec["error"] is None
    assert rec["calls"] == ["first", "new inputs, same shapes"]
    assert rec["recompiles"] == [] and rec["breaks"] == []
    assert not rec["recompile_count"]


def test_second_size_recompiles_where_torch_says(probe: tuple[ModuleType, Path]) -> None:
    """A batched input gets a third call with one more row: the size read before the break
    (`graph_break()`) and used after it recompiles; the break line is the same on every call."""
    lp, site = probe

    def build() -> Any:
        torch = lp._t()
        from tinyrec.rows import mean_rows

        return mean_rows, (torch.randn(3, 2),)

    rec = lp.observe_calls(build, str(site), "tinyrec/")
    assert rec["error"] is None
    assert rec["calls"] == ["first", "new inputs, same shapes", "one more row"]
    assert rec["breaks"] == [("tinyrec/rows.py", _line(ROWS, "graph_break()"))]
    assert rec["recompile_count"] and rec["recompile_count"] >= 1
    # the resume function's guard on `n` is named at the line that uses it after the break
    # (and the new size at the function's first line)
    assert ("tinyrec/rows.py", _line(ROWS, "return y / n")) in rec["recompiles"]
    # the record names the recompiled code: the resume function, which starts at the break
    (use,) = [r for r in rec["records"] if r["at"] == ["tinyrec/rows.py", _line(ROWS, "return y")]]
    assert use["code"][:2] == ["tinyrec/rows.py", _line(ROWS, "graph_break()")]
    assert use["code"][2].startswith("torch_dynamo_resume_in_mean_rows")
    assert all(p == "tinyrec/rows.py" for p, _ in rec["recompiles"])


def test_second_inputs_keep_objects_and_shapes(probe: tuple[ModuleType, Path]) -> None:
    lp, _ = probe
    import torch

    mod = torch.nn.Linear(2, 2)
    first = (mod, torch.zeros(3, 2), torch.zeros(2), 0.5)
    drawn = (torch.nn.Linear(2, 2), torch.ones(3, 2), torch.ones(4), 0.7)
    got = lp.second_inputs(first, drawn)
    assert got[0] is mod and got[3] == 0.5  # the loop passes its own objects again
    assert torch.equal(got[1], torch.ones(3, 2))  # new values, same shape
    assert got[2] is first[2]  # another shape: the first call's tensor
    bigger = lp.resized_inputs(got)
    assert bigger is not None and bigger[1].shape == (4, 2) and bigger[2].shape == (2,)
    assert lp.resized_inputs((torch.zeros(2), 1)) is None


def test_score_counts_recompile_lines_for_recompile_rules_only(
    probe: tuple[ModuleType, Path],
) -> None:
    lp, _ = probe
    findings = [
        ("p/a.py", 10, "CL101", None),  # a break line
        ("p/a.py", 20, "CL303", None),  # a recompile line, a recompile rule
        ("p/a.py", 30, "CL101", None),  # a recompile line, not a recompile rule
        ("p/a.py", 40, "CL304", 41),  # its guard line is a recompile line
        ("p/a.py", 50, "CL304", None),  # neither
    ]
    got = lp.confirmed(findings, {("p/a.py", 10)}, {("p/a.py", 20), ("p/a.py", 30), ("p/a.py", 41)})
    assert got == {("p/a.py", 10), ("p/a.py", 20), ("p/a.py", 40)}


# --------------------------------------------- library mode: code behind a loop break
# torch-kmeans: `_cluster` breaks inside `for i in range(self.max_iter):` on `if (shift <
# self.tol).all():`, under `if self.tol is not None:` (`tol` stored from a default 1e-4), so
# dynamo skips the rest of the frame and runs it eagerly: the breaks after it are never
# reported on a user's call. Library mode now reads the test around the loop break with the
# project's values (`Project.surely_holds`) and treats what lies behind it as latent.
LOOP = """\
import torch
from torch import nn


class Cluster(nn.Module):
    def __init__(self, tol=1e-4, max_iter=3):
        super().__init__()
        self.tol = tol
        self.max_iter = max_iter

    def forward(self, x):
        c = x
        for i in range(self.max_iter):
            c = c * 0.5
            if self.tol is not None:
                if (c.abs() < self.tol).all():
                    break
        n = c.sum().item()
        return c + n


class NoTol(nn.Module):
    def __init__(self, tol=None, max_iter=3):
        super().__init__()
        self.tol = tol
        self.max_iter = max_iter

    def forward(self, x):
        c = x
        for i in range(self.max_iter):
            c = c * 0.5
            if self.tol is not None:
                if (c.abs() < self.tol).all():
                    break
        n = c.sum().item()
        return c + n
"""
LOOP_BREAK, AFTER = 16, 18
NOTOL_AFTER, NOTOL_BREAK = 35, 33
# the package builds a `Cluster` without a tolerance too: the test around the loop break is
# not decided
BUILT = (
    LOOP
    + """

def exact():
    return Cluster(tol=None)
"""
)


def _library(
    tmp_path: Path, entries: list[str], *extra: str, src: str = LOOP
) -> list[dict[str, Any]]:
    """Library mode on package ``mylib`` (``src`` in ``mylib/_ops.py``): its findings there."""
    import json

    from tests.cli_invoke import invoke

    pkg = tmp_path / "mylib"
    pkg.mkdir()
    names = [e.removesuffix(".*") for e in entries]
    (pkg / "__init__.py").write_text(f"from ._ops import {', '.join(names)}\n")
    (pkg / "_ops.py").write_text(src)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nentries = " + json.dumps([f"mylib.{e}" for e in entries]) + "\n"
    )
    code, out, err = invoke(
        ["check", "mylib", "--format", "json", "--no-cache", *extra], cwd=tmp_path
    )
    assert code in (0, 1), err
    return [f for f in json.loads(out)["findings"] if f["path"].endswith("_ops.py")]


def test_the_loop_lines_are_where_the_tests_say() -> None:
    lines = LOOP.splitlines()
    assert lines[LOOP_BREAK - 1].strip() == "if (c.abs() < self.tol).all():"
    assert lines[AFTER - 1].strip() == "n = c.sum().item()"
    assert lines[NOTOL_AFTER - 1].strip() == "n = c.sum().item()"
    assert lines[NOTOL_BREAK - 1].strip() == "if (c.abs() < self.tol).all():"


def test_behind_a_loop_break_the_defaults_reach_is_latent(tmp_path: Path) -> None:
    # VALID: `tol` is 1e-4 under the defaults, every iteration reaches the loop break, torch
    # skips the frame there and never reports `.item()` after the loop
    lines = {f["line"] for f in _library(tmp_path, ["Cluster.*"])}
    assert LOOP_BREAK in lines
    assert AFTER not in lines


def test_behind_a_loop_break_is_shown_with_report_untraced(tmp_path: Path) -> None:
    got = [f for f in _library(tmp_path, ["Cluster.*"], "--report-untraced") if f["line"] == AFTER]
    assert got and all(f.get("behind") == LOOP_BREAK for f in got)
    assert all("latent" in f["message"] for f in got)


def test_a_loop_break_the_defaults_refute_hides_nothing(tmp_path: Path) -> None:
    # INVALID: `tol` is None under the defaults, the loop never breaks, torch compiles the
    # rest of the frame and breaks on `.item()`
    lines = {f["line"] for f in _library(tmp_path, ["NoTol.*"])}
    assert NOTOL_AFTER in lines


def test_a_loop_break_under_an_undecided_test_hides_nothing(tmp_path: Path) -> None:
    # INVALID: the package's public `exact()` builds `Cluster(tol=None)`, whose loop never
    # breaks: the test around the loop break may not hold, so the `.item()` stays reported
    lines = {f["line"] for f in _library(tmp_path, ["Cluster.*", "exact"], src=BUILT)}
    assert AFTER in lines


@pytest.mark.torch
@pytest.mark.parametrize(
    ("build", "want"),
    [
        ("Cluster()", {LOOP_BREAK}),
        ("NoTol()", {NOTOL_AFTER}),
        ("exact()", {AFTER}),  # the instance the package builds without a tolerance
    ],
)
def test_torch_agrees_on_the_loop_break(
    monkeypatch: pytest.MonkeyPatch, build: str, want: set[int]
) -> None:
    # torch logs the loop break and nothing after it (the frame runs eagerly from there) where
    # the tolerance is set; without one it compiles on and breaks on `.item()`
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "lib23k_loop"
    mod = ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(BUILT, f"<{name}>", "exec"), mod.__dict__)
    x = torch.randn(4, 3)
    got = logged_break_lines(eval(build, mod.__dict__), x, name)
    assert got & {LOOP_BREAK, AFTER, NOTOL_BREAK, NOTOL_AFTER} == want
