"""Issue 23, pred23i: recompile kinds predicted in general, each checked against torch 2.13.

- **A number a break hands to the resume function** (``predict.number_break``,
  ``predict._runs_per_call``): the resume function after a break that produces a Python number
  (``.item()``, or a ``random`` draw / ``time`` clock dynamo does not trace, CL205) guards on its
  value where it first uses it. It recompiles once the number differs between the resume
  function's runs: a draw differs on every run (so over the spec's calls); a number read from a
  tensor differs when the data does, between calls with new tensors or between two runs of its
  function within one call (one module class held by two attributes).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan
from tests.pred_helpers import line_of, predicted_recompile_lines, torch_recompile_lines

TORCH = "import random\n\nimport torch\nfrom torch import nn\n"


# ---------------------------------------------------------------------------- numbers from breaks
# VALID: `random.random()` breaks (CL205) and its number is drawn anew on every call: the
# resume function recompiles once, at the line that compares it
DRAW_COMPARED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = 0.5

        def forward(self, x):
            if random.random() < self.p:
                x = torch.flip(x, dims=[-1])
            return x * 2
    """)
# VALID: the draw stored in a name: the guard is where the name is first read
DRAW_STORED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            r = random.gauss(0.0, 1.0)
            y = x * 2
            return y + r
    """)
# VALID: `.item()` in a submodule whose class two attributes hold: one call runs its resume
# function twice with two layers' data; the tuple of read-outs is first used on the next line
SHARED_ITEM = TORCH + textwrap.dedent("""
    class Observer(nn.Module):
        def forward(self, x):
            lo, hi = x.min().item(), x.max().item()
            self.span = max(hi - lo, 1e-6)
            return x / self.span

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.obs1 = Observer()
            self.b = nn.Linear(4, 4)
            self.obs2 = Observer()

        def forward(self, x):
            x = self.obs1(torch.relu(self.a(x)))
            return self.obs2(torch.relu(self.b(x)))
    """)
# INVALID: the same observer held once, one call: its resume function runs once
SINGLE_ITEM = TORCH + textwrap.dedent("""
    class Observer(nn.Module):
        def forward(self, x):
            lo, hi = x.min().item(), x.max().item()
            self.span = max(hi - lo, 1e-6)
            return x / self.span

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.obs1 = Observer()

        def forward(self, x):
            return self.obs1(torch.relu(self.a(x)))
    """)
# INVALID: a clock read (CL205) only returned as it is: an output, not guarded (no recompile)
DRAW_RETURNED = "import time\n\nimport torch\nfrom torch import nn\n" + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            start = time.perf_counter()
            y = self.lin(x)
            return y, start
    """)
# INVALID: the observer held twice, but its number is stored and never read again: torch
# guards a number where traced code uses it, so nothing is guarded (no recompile)
SHARED_UNUSED = SHARED_ITEM.replace(
    "lo, hi = x.min().item(), x.max().item()\n        self.span = max(hi - lo, 1e-6)",
    "unused = x.max().item()\n        self.span = 2.0",
)
assert "unused = " in SHARED_UNUSED
NUMBER_CASES: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "draw_compared": (DRAW_COMPARED, "if random.random()", {"calls": 3}),
    "draw_stored": (DRAW_STORED, "return y + r", {"calls": 3}),
    "shared_item": (SHARED_ITEM, "self.span = max(", {}),
    # INVALID: one call, so one draw; one instance, one call
    "draw_one_call": (DRAW_COMPARED, None, {}),
    "draw_returned": (DRAW_RETURNED, None, {"calls": 3}),
    "single_item": (SINGLE_ITEM, None, {}),
    "shared_unused": (SHARED_UNUSED, None, {}),
}
NUMBER_INPUTS: dict[str, Any] = {"inputs": [{"tensor": [2, 4]}]}


@pytest.mark.parametrize("name", sorted(NUMBER_CASES))
def test_a_number_from_a_break_recompiles_when_it_changes_between_runs(
    tmp_path: Path, name: str
) -> None:
    src, at, spec = NUMBER_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert predicted_recompile_lines(tmp_path, src, {**NUMBER_INPUTS, **spec}) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(NUMBER_CASES))
def test_the_numbers_from_breaks_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at, spec = NUMBER_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert torch_recompile_lines(tmp_path, src, {**NUMBER_INPUTS, **spec}) == want


# ---------------------------------------------------------------------------- nested frames
# VALID: `max(range(n), key=lambda i: s[i])` breaks (CL114, the keys are 0-d tensors): the
# builtin runs eagerly and calls the lambda, a frame of its own, once per index: `i == 0`
# fails on its second run (one recompile, then `i` is symbolic)
LAMBDA_KEY = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            s = x.sum(-1)
            best = max(range(len(s)), key=lambda i: s[i])
            return x[best]
    """)
# INVALID: the keys are Python floats: dynamo traces `max` itself, no frame for the lambda
LAMBDA_KEY_FLOATS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = [0.5, 2.0, 1.0]

        def forward(self, x):
            best = max(range(len(self.w)), key=lambda i: self.w[i])
            return x * best
    """)
# VALID: `int(n[i])` breaks in the loop, so dynamo skips `forward`; the list comprehension
# (a frame before Python 3.12) runs on every iteration with another `i`
COMP_IN_SKIPPED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, n):
            out = []
            for i in range(x.size(0)):
                k = int(n[i])
                rows = [x[i, j] * 2 for j in range(k)]
                out.append(torch.stack(rows).sum(0))
            return torch.stack(out)
    """)
# INVALID: the same loop without a break: dynamo traces the frame and inlines the comprehension
COMP_TRACED = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, n):
            out = []
            for i in range(x.size(0)):
                rows = [x[i, j] * 2 for j in range(2)]
                out.append(torch.stack(rows).sum(0))
            return torch.stack(out)
    """)
# VALID: the comprehension reads a name the loop assigns from its int (`k = int(n[i])`)
COMP_READS_K = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, n):
            out = []
            for i in range(x.size(0)):
                k = int(n[i])
                rows = [x[0, j] * k for j in range(2)]
                out.append(torch.stack(rows).sum(0))
            return torch.stack(out)
    """)
# VALID: the comprehension's first iterable changes (`range(k)`): the frame's argument, the
# range iterator, is guarded (`___normalize_range_iter(.0) == (0, 2, 1)`)
COMP_RANGE_K = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, n):
            out = []
            for i in range(x.size(0)):
                k = int(n[i])
                c = 2
                rows = [x[0, j] * c for j in range(k)]
                out.append(torch.stack(rows).sum(0))
            return torch.stack(out)
    """)
# INVALID: a skipped frame whose comprehension reads nothing that changes between iterations
COMP_SAME = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, n):
            out = []
            for i in range(x.size(0)):
                k = int(n[i])
                c = 2
                rows = [x[0, j] * c for j in range(2)]
                out.append(torch.stack(rows).sum(0) * k)
            return torch.stack(out)
    """)
COMP_INPUTS: dict[str, Any] = {
    "inputs": [{"tensor": [2, 3, 4]}, {"tensor": [2], "dtype": "int64", "data": [2, 3]}]
}
NESTED_CASES: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "lambda_key": (LAMBDA_KEY, "key=lambda i: s[i]", NUMBER_INPUTS),
    "lambda_key_floats": (LAMBDA_KEY_FLOATS, None, NUMBER_INPUTS),
    "comp_in_skipped": (COMP_IN_SKIPPED, "rows = [x[i, j]", COMP_INPUTS),
    "comp_traced": (COMP_TRACED, None, COMP_INPUTS),
    "comp_reads_k": (COMP_READS_K, "rows = [x[0, j] * k", COMP_INPUTS),
    "comp_range_k": (COMP_RANGE_K, "for j in range(k)]", COMP_INPUTS),
    "comp_same": (COMP_SAME, None, COMP_INPUTS),
}


@pytest.mark.parametrize("name", sorted(NESTED_CASES))
def test_a_nested_frame_run_with_another_int_recompiles(tmp_path: Path, name: str) -> None:
    src, at, spec = NESTED_CASES[name]
    if name.startswith("comp_") and sys.version_info >= (3, 12):
        at = None  # PEP 709: the comprehension is inlined, no frame of its own
    want = {line_of(src, at)} if at else set()
    assert predicted_recompile_lines(tmp_path, src, spec) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(NESTED_CASES))
def test_the_nested_frames_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at, spec = NESTED_CASES[name]
    if name.startswith("comp_") and sys.version_info >= (3, 12):
        at = None
    want = {line_of(src, at)} if at else set()
    assert torch_recompile_lines(tmp_path, src, spec) == want


def test_cl114_flags_indices_ordered_by_a_tensor(tmp_path: Path) -> None:
    """``max(range(len(s)), key=lambda i: s[i])`` with ``s`` a tensor is CL114 (GB0193); with
    ``self.w`` a list of floats it is not."""
    for src, want in ((LAMBDA_KEY, True), (LAMBDA_KEY_FLOATS, False)):
        (tmp_path / "m.py").write_text(src)
        old = os.getcwd()
        os.chdir(tmp_path)
        try:
            got = [f for f in scan(["m.py"], load_config(["m.py"]), no_cache=True).findings]
        finally:
            os.chdir(old)
        lines = {f.line for f in got if f.rule == "CL114"}
        assert lines == ({line_of(src, "key=lambda")} if want else set())


# ---------------------------------------------------------------------------- without a spec
def _scan_cl303(tmp_path: Path, src: str) -> set[int]:
    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        got = scan(["m.py"], load_config(["m.py"]), no_cache=True).findings
    finally:
        os.chdir(old)
    return {f.line for f in got if f.rule == "CL303"}


# what the source alone shows (the model called more than once): a draw differs between calls;
# a method run by two instances in one call; nested frames. INVALID: one instance (a number
# read from data may repeat between calls), a comprehension in a frame dynamo traces
SPEC_FREE_CASES: dict[str, tuple[str, str | None]] = {
    "draw_compared": (DRAW_COMPARED, "if random.random()"),
    "shared_item": (SHARED_ITEM, "self.span = max("),
    "single_item": (SINGLE_ITEM, None),
    "lambda_key": (LAMBDA_KEY, "key=lambda i: s[i]"),
    "comp_in_skipped": (COMP_IN_SKIPPED, "rows = [x[i, j]"),
    "comp_traced": (COMP_TRACED, None),
}


@pytest.mark.parametrize("name", sorted(SPEC_FREE_CASES))
def test_the_kinds_without_a_spec(tmp_path: Path, name: str) -> None:
    src, at = SPEC_FREE_CASES[name]
    if name.startswith("comp_") and sys.version_info >= (3, 12):
        at = None
    assert _scan_cl303(tmp_path, src) == ({line_of(src, at)} if at else set())


def test_with_a_spec_the_prediction_decides_the_spec_free_lines(tmp_path: Path) -> None:
    """A draw recompiles between calls: the scan without a spec reports it (CL303); with a
    spec of one call the prediction knows there is no second draw and the line goes; with
    three calls it stays (one finding)."""
    from compilelint.api import check

    src = DRAW_COMPARED
    at = line_of(src, "if random.random()")
    assert _scan_cl303(tmp_path, src) == {at}
    for calls, want in ((1, set()), (3, {at})):
        spec = {"model": "m.py:M", **NUMBER_INPUTS, "calls": calls}
        (tmp_path / "spec.json").write_text(json.dumps(spec))
        old = os.getcwd()
        os.chdir(tmp_path)
        try:
            report = check(["m.py"], load_config(["m.py"]), no_cache=True, predict_spec="spec.json")
        finally:
            os.chdir(old)
        got = [f for f in report.findings if f.rule == "CL303"]
        assert {f.line for f in got} == want and len(got) == len(want)


def test_the_editor_buffer_decides_spec_free_recompile_lines(tmp_path: Path) -> None:
    """The editor server checks an unsaved buffer: a spec-free CL303's line text, columns and
    ``# noqa`` come from the buffer, not from the file on disk."""
    from compilelint.lsp.analyzer import Analyzer

    path = tmp_path / "m.py"
    path.write_text(SHARED_ITEM, encoding="utf-8")  # on disk: no suppression, no added lines
    line = line_of(SHARED_ITEM, "self.span = max(")
    an = Analyzer()
    got = [f for f in an.check(str(path), SHARED_ITEM).findings if f.rule == "CL303"]
    assert [f.line for f in got] == [line]
    moved = SHARED_ITEM.replace("class Observer", "# one\n# two\nclass Observer", 1)
    quiet = moved.replace("1e-6)\n", "1e-6)  # noqa: CL303\n", 1)
    assert not [f for f in an.check(str(path), quiet).findings if f.rule == "CL303"]
    (found,) = [f for f in an.check(str(path), moved).findings if f.rule == "CL303"]
    assert found.line == line + 2
    assert found.line_text == "self.span = max(hi - lo, 1e-6)"
    assert found.col == 9
