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
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan

TORCH = "import random\n\nimport torch\nfrom torch import nn\n"


def _line_of(src: str, text: str) -> int:
    return next(i for i, ln in enumerate(src.splitlines(), 1) if text in ln)


def _predicted_lines(tmp_path: Path, src: str, spec: dict[str, Any]) -> set[int]:
    from compilelint.catalog import load_catalog
    from compilelint.dynamic.spec import validate
    from compilelint.static.predict import predict

    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = scan(["m.py"], load_config(["m.py"]), want_project=True, no_cache=True)
        assert res.project is not None
        s = validate({"model": "m.py:M", **spec}, source=str(tmp_path / "spec.json"))
        got = predict(res.project, res.findings, s, load_catalog(), str(tmp_path))
    finally:
        os.chdir(old)
    return {r.line for r in got.recompile_sites if r.path.endswith("m.py")}


def _torch_lines(tmp_path: Path, src: str, spec: dict[str, Any]) -> set[int]:
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None
    return {r["line"] for r in block["recompiles"] if not r.get("invalidated")}


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
NUMBER_CASES: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "draw_compared": (DRAW_COMPARED, "if random.random()", {"calls": 3}),
    "draw_stored": (DRAW_STORED, "return y + r", {"calls": 3}),
    "shared_item": (SHARED_ITEM, "self.span = max(", {}),
    # INVALID: one call, so one draw; one instance, one call
    "draw_one_call": (DRAW_COMPARED, None, {}),
    "single_item": (SINGLE_ITEM, None, {}),
}
NUMBER_INPUTS: dict[str, Any] = {"inputs": [{"tensor": [2, 4]}]}


@pytest.mark.parametrize("name", sorted(NUMBER_CASES))
def test_a_number_from_a_break_recompiles_when_it_changes_between_runs(
    tmp_path: Path, name: str
) -> None:
    src, at, spec = NUMBER_CASES[name]
    want = {_line_of(src, at)} if at else set()
    assert _predicted_lines(tmp_path, src, {**NUMBER_INPUTS, **spec}) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(NUMBER_CASES))
def test_the_numbers_from_breaks_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at, spec = NUMBER_CASES[name]
    want = {_line_of(src, at)} if at else set()
    assert _torch_lines(tmp_path, src, {**NUMBER_INPUTS, **spec}) == want
