"""Issue 23, pred23p: recompile kinds of the new development set ``dev3r``, each decided from
the model of guards and checked against torch 2.13.

- **An argument traced code never reads** installs no guard: a literal default is no read
  (``output_attentions=False`` passed for API compatibility recompiles nothing).
- **CL301 with a spec** (``predict.settled_numbers``): a number the spec passes with one value
  in every call, or one no use needs as a constant (automatic dynamic makes it a symbol after
  the one recompile the prediction reports at its first read), is no recompile at the use.
- **``requires_grad``** is part of dynamo's tensor guard: a call whose input requires grad
  recompiles once, at the ``def``.
- **Module state read through a method or property** of the same class before it changes is
  guarded at the read in that method's body (``state.first_read_line``).
- **A tensor attribute grown by ``torch.cat``** (``predict.grown_tensors``): its sizes are
  guarded before the frame runs, so the next call recompiles at the entry's ``def``.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import (
    case_tests,
    line_of,
    predicted_recompile_lines,
    torch_recompile_lines,
)

TORCH = "import torch\nfrom torch import nn\n"


def _model(body: str, init: str = "") -> str:
    return (
        TORCH
        + "\n\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        + "        self.fc = nn.Linear(8, 8)\n"
        + textwrap.indent(textwrap.dedent(init), "        ")
        + "\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


def findings_with_spec(
    tmp_path: Path, src: str, spec: dict[str, Any] | None
) -> set[tuple[str, int]]:
    """(rule, line) of the findings ``compilelint check m.py [--input-spec]`` reports in m.py."""
    from compilelint.api import check
    from compilelint.config import load_config

    (tmp_path / "m.py").write_text(src)
    spec_path = None
    if spec is not None:
        (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
        spec_path = str(tmp_path / "spec.json")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = check(["m.py"], load_config(["m.py"]), no_cache=True, predict_spec=spec_path)
    finally:
        os.chdir(old)
    return {(f.rule, f.line) for f in report.findings if f.path.endswith("m.py")}


X = {"tensor": [2, 8]}


def _calls(**values: list[Any]) -> dict[str, Any]:
    """The inputs ``X`` with each keyword's first value, then a variant per later value."""
    n = max(len(v) for v in values.values())
    first = {k: v[0] for k, v in values.items()}
    return {
        "inputs": [X],
        "kwargs": first,
        "variants": [
            {"inputs": [X], "kwargs": {k: v[min(i, len(v) - 1)] for k, v in values.items()}}
            for i in range(1, n)
        ],
    }


# ---------------------------------------------------------------------------- the cases
# each: (source, spec, the lines the prediction and torch report, by the text on the line;
# "def" for the `def forward` line)
CASES: dict[str, tuple[str, dict[str, Any], set[str]]] = {
    # VALID: an argument accepted for API compatibility and never read: no guard
    "unread_flag": (
        _model("""
            def forward(self, x, return_dict=True, output_attentions=False):
                y = self.fc(x)
                if return_dict:
                    return {"y": y}
                return (y,)
            """),
        _calls(output_attentions=[False, True]),
        set(),
    ),
    # INVALID: the same flag read in a branch: guarded there
    "read_flag": (
        _model("""
            def forward(self, x, output_attentions=False):
                y = self.fc(x)
                if output_attentions:
                    return y, y.softmax(-1)
                return y
            """),
        _calls(output_attentions=[False, True]),
        {"if output_attentions:"},
    ),
    # VALID: `range(num_steps)` with the same value in every call: no recompile
    "same_steps": (
        _model("""
            def forward(self, x, num_steps=10):
                for _ in range(num_steps):
                    x = self.fc(x)
                return x
            """),
        {**_calls(num_steps=[3]), "calls": 3},
        set(),
    ),
    # VALID: a size argument of `.view` that changes: one recompile at its first read, then
    # a symbol (the view does not need the value)
    "view_symbolic": (
        _model("""
            def forward(self, x, k=1):
                y = self.fc(x).repeat_interleave(k, dim=0)
                return y.view(-1, k, 8).mean(1)
            """),
        _calls(k=[2, 3, 4]),
        {"y = self.fc(x).repeat_interleave(k, dim=0)"},
    ),
    # INVALID: `range(k)` needs the value: every new value recompiles there
    "range_changes": (
        _model("""
            def forward(self, x, k=1):
                for _ in range(k):
                    x = self.fc(x)
                return x
            """),
        _calls(k=[2, 3, 4]),
        {"for _ in range(k):"},
    ),
    # VALID: an input that requires grad in the second call
    "requires_grad": (
        _model("""
            def forward(self, x):
                return self.fc(x).tanh()
            """),
        {"inputs": [X], "variants": [{"inputs": [{"tensor": [2, 8], "requires_grad": True}]}]},
        {"def"},
    ),
    # INVALID: requires grad in both calls
    "requires_grad_same": (
        _model("""
            def forward(self, x):
                return self.fc(x).tanh()
            """),
        {
            "inputs": [{"tensor": [2, 8], "requires_grad": True}],
            "variants": [{"inputs": [{"tensor": [2, 8], "requires_grad": True}]}],
        },
        set(),
    ),
    # VALID: a counter read through a property before it changes
    "property_read": (
        _model(
            """
            @property
            def weight(self):
                return min(1.0, self.step / 100)

            def forward(self, x):
                y = self.fc(x) * self.weight
                self.step += 1
                return y
            """,
            "self.step = 0\n",
        ),
        {"inputs": [X], "calls": 3},
        {"return min(1.0, self.step / 100)"},
    ),
    # VALID: the same through a method
    "method_read": (
        _model(
            """
            def ramp(self):
                w = self.step / 100
                return min(1.0, w)

            def forward(self, x):
                y = self.fc(x) * self.ramp()
                self.step += 1
                return y
            """,
            "self.step = 0\n",
        ),
        {"inputs": [X], "calls": 3},
        {"w = self.step / 100"},
    ),
    # INVALID: the forward reads the counter itself first: its own line
    "own_read_first": (
        _model(
            """
            def ramp(self):
                return min(1.0, self.step / 100)

            def forward(self, x):
                s = self.step * 0.5
                y = self.fc(x) * self.ramp() * s
                self.step += 1
                return y
            """,
            "self.step = 0\n",
        ),
        {"inputs": [X], "calls": 3},
        {"s = self.step * 0.5"},
    ),
    # VALID: a history tensor on the module grown by torch.cat on every call
    "grown_attr": (
        _model(
            """
            def forward(self, x):
                self.hist = torch.cat([self.hist, self.fc(x)], 0)
                return self.hist.mean(0)
            """,
            "self.hist = torch.zeros(0, 8)\n",
        ),
        {"inputs": [X], "calls": 4},
        {"def"},
    ),
    # VALID: the same in a registered buffer (it stays static: every call)
    "grown_buffer": (
        _model(
            """
            def forward(self, x):
                self.hist = torch.cat((self.hist, self.fc(x)), dim=0)
                return self.hist.mean(0)
            """,
            'self.register_buffer("hist", torch.zeros(1, 8))\n',
        ),
        {"inputs": [X], "calls": 3},
        {"def"},
    ),
    # INVALID: the attribute is rebuilt from the input, not grown: the same size every call
    "rebuilt_attr": (
        _model(
            """
            def forward(self, x):
                self.last = torch.cat([x, self.fc(x)], 0)
                return self.last.mean(0)
            """,
            "self.last = torch.zeros(0, 8)\n",
        ),
        {"inputs": [X], "calls": 3},
        set(),
    ),
    # VALID: a list of lengths iterated with enumerate: its elements are guarded where the
    # loop's body first needs one, not at the `for`
    "enumerate_lengths": (
        _model("""
            def forward(self, x, lengths):
                h = self.fc(x)
                mask = torch.zeros(h.shape[0], 4, dtype=torch.bool)
                for i, n in enumerate(lengths):
                    mask[i, :n] = True
                return h * mask.float().mean(1, keepdim=True)
            """),
        {"inputs": [X, [3, 1]], "variants": [{"inputs": [X, [2, 2]]}]},
        {"mask[i, :n] = True"},
    ),
    # VALID: the same through zip
    "zip_scales": (
        _model("""
            def forward(self, x, scales):
                outs = []
                for row, s in zip(x, scales):
                    outs.append(self.fc(row) * s)
                return torch.stack(outs)
            """),
        {"inputs": [X, [0.5, 2.0]], "variants": [{"inputs": [X, [1.5, 2.0]]}]},
        {"outs.append(self.fc(row) * s)"},
    ),
    # VALID: a batch dict whose labels come in the second call only: guarded at the test
    "dict_key_tested": (
        _model("""
            def forward(self, batch):
                y = self.fc(batch["x"])
                if "t" in batch:
                    y = y - batch["t"]
                return y
            """),
        {
            "inputs": [{"dict": {"x": X}}],
            "variants": [{"inputs": [{"dict": {"x": X, "t": X}}]}],
        },
        {'if "t" in batch:'},
    ),
    # INVALID: an extra key traced code never reads: not guarded, no recompile
    "dict_key_unread": (
        _model("""
            def forward(self, batch):
                return self.fc(batch["x"])
            """),
        {
            "inputs": [{"dict": {"x": X}}],
            "variants": [{"inputs": [{"dict": {"x": X, "meta": 3}}]}],
        },
        set(),
    ),
    # VALID: a branch on a size that became symbolic: its range guard fails at a size past
    # the branch's literal, and the guard's comment names the branch
    "size_branch": (
        _model("""
            def forward(self, x):
                if x.size(0) > 8:
                    x = x[-8:]
                return self.fc(x).mean(0)
            """),
        {
            "inputs": [{"tensor": [3, 8]}],
            "variants": [{"inputs": [{"tensor": [5, 8]}]}, {"inputs": [{"tensor": [11, 8]}]}],
        },
        {"def", "if x.size(0) > 8:"},
    ),
    # VALID: a counter in a frame that breaks in a loop: dynamo skips the frame, it runs
    # eagerly, and no compiled entry guards the counter
    "skipped_frame": (
        _model(
            """
            def forward(self, x):
                w = min(1.0, self.step / 10)
                for _ in range(2):
                    if x.sum() > 0:
                        x = x * 0.5
                self.step += 1
                return self.fc(x) * w
            """,
            "self.step = 0\n",
        ),
        {"inputs": [X], "calls": 3},
        set(),
    ),
    # INVALID: the counter is read before a break outside the loop: that part is a graph, and
    # its entry guards the counter
    "read_before_skip": (
        _model(
            """
            def forward(self, x):
                w = min(1.0, self.step / 10)
                y = self.fc(x) * w
                print("scaled")
                for _ in range(2):
                    if y.sum() > 0:
                        y = y * 0.5
                self.step += 1
                return y
            """,
            "self.step = 0\n",
        ),
        {"inputs": [X], "calls": 3},
        {"w = min(1.0, self.step / 10)"},
    ),
    # VALID: a task id that picks a head from a ModuleList: the first recompile where it is
    # first read, the later ones at the `def` (the container's `__getitem__` specialises it)
    "modulelist_index": (
        TORCH
        + textwrap.dedent("""

            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.heads = nn.ModuleList([nn.Linear(8, 2) for _ in range(3)])

                def forward(self, x, task):
                    return self.heads[task](x)
            """),
        {"inputs": [X, 0], "variants": [{"inputs": [X, 1]}, {"inputs": [X, 2]}]},
        {"def", "return self.heads[task](x)"},
    ),
    # INVALID: two values only: the one recompile at the read
    "modulelist_two": (
        TORCH
        + textwrap.dedent("""

            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))

                def forward(self, x, i):
                    y = x * 2
                    return self.blocks[i](y)
            """),
        {"inputs": [X, 0], "variants": [{"inputs": [X, 1]}]},
        {"return self.blocks[i](y)"},
    ),
}


test_the_prediction, test_the_prediction_matches_torch = case_tests(
    CASES, predicted_recompile_lines, torch_recompile_lines
)


# ---------------------------------------------------------------------------- CL301 with a spec
@pytest.mark.parametrize(
    ("name", "settled"),
    [("same_steps", True), ("view_symbolic", True), ("range_changes", False)],
)
def test_cl301_with_a_spec(tmp_path: Path, name: str, settled: bool) -> None:
    src, spec, _texts = CASES[name]
    use = {"same_steps": "range(num_steps)", "view_symbolic": "y.view", "range_changes": "range(k)"}
    line = line_of(src, use[name])
    assert ("CL301", line) in findings_with_spec(tmp_path, src, None)  # the scan: every value
    got = findings_with_spec(tmp_path, src, spec)
    assert (("CL301", line) not in got) == settled, sorted(got)


def test_first_read_through_a_property() -> None:
    import ast

    from compilelint.static.analysis.state import first_read_line

    src, _spec, _texts = CASES["property_read"]
    tree = ast.parse(src)
    change = line_of(src, "self.step += 1")
    assert first_read_line(tree, "step", change) == line_of(src, "return min(1.0, self.step")
    assert first_read_line(tree, "step", change, every_path=False) == line_of(
        src, "return min(1.0, self.step"
    )
    # a method reached only after the change does not move the line
    later = ast.parse(
        src.replace("* self.weight", "").replace("return y", "return y * self.weight")
    )
    assert first_read_line(later, "step", change) == change
