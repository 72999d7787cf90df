"""The graph count when the last break is the outermost call of a function's final ``return``
(issue 23): the resume function after it only returns, makes no graph, and torch does not
count one. Each case predicted without torch and compared with the dynamic stage's
``graph_count`` (torch 2.13)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from .pred_helpers import prediction

HEAD = textwrap.dedent("""
    import torch
    from torch import nn


    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, h):
            y = self.fc(h)
            if y.sum() > 0:
                y = y * 2
            return y + 1


    class LoopHead(nn.Module):
        def forward(self, h):
            out = []
            for i in range(h.shape[0]):
                out.append(h[i][h[i] > 0].sum())
            return out


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.head = Head()
            self.loop_head = LoopHead()

        def forward(self, x):
            BODY
    """)
CASES: dict[str, tuple[str, int]] = {
    # VALID (one graph less than segments): the callee's break is the return's outer call
    "callee": ("h = self.fc(x).relu()\n        return self.head(h)", 3),
    # the argument's call runs before the break, in the first graph
    "callee_of_call": ("return self.head(self.fc(x).relu())", 3),
    # a callee that breaks in a loop runs eagerly (no graph of its own)
    "loop_callee": ("return self.loop_head(self.fc(x))", 1),
    # a value read in the return
    "item": ("return self.fc(x).sum().item()", 1),
    # INVALID: work after the break makes a graph
    "item_then_work": ("n = self.fc(x).sum().item()\n        return x * n", 2),
    # INVALID: a call on the callee's result runs in the resume function
    "call_on_result": ("return self.head(self.fc(x)).relu()", 4),
}
SPEC: dict[str, Any] = {"model": "m.py:M", "inputs": [{"tensor": [2, 4]}]}


def _src(name: str) -> str:
    return HEAD.replace("BODY", CASES[name][0])


def _predicted(tmp_path: Path, src: str) -> int:
    return prediction(tmp_path, src, SPEC).graph_count


@pytest.mark.parametrize("name", sorted(CASES))
def test_predicted_graph_count(tmp_path: Path, name: str) -> None:
    assert _predicted(tmp_path, _src(name)) == CASES[name][1]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_count_matches_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(_src(name))
    (tmp_path / "spec.json").write_text(json.dumps(SPEC))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None, block["error"]
    assert block["graph_count"] == CASES[name][1]
