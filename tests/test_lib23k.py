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
