"""Issue 23, pred25c: clean models, second set (dev3f), no break predicted where torch 2.13
traces none, checked against torch.

An input spec builds its class with the spec's ``init`` arguments (the rest at their defaults):
an attribute ``__init__`` stores from a parameter (``self.recycling = recycling``) holds that
value in the spec's run, so a branch on it that cannot hold is not traced (x-transformers'
``elif self.recycling:``, a debugging ``if self.track_norms:`` around ``.item()``). And only
the constructions that run while the spec builds its class count for what a held object is
built with: a class the model's ``__init__`` builds under its defaults is not made unknown by
a factory elsewhere that nothing calls (x-transformers' ``XTransformer.__init__`` builds
``TransformerWrapper`` from keyword dicts; the user's model builds its own).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.pred_helpers import (
    case_tests,
    marked_lines,
    predicted_break_lines,
    torch_break_lines,
)

RECYCLING = textwrap.dedent("""\
    import torch
    from torch import nn


    class M(nn.Module):
        def __init__(self, dim, recycling=False, track_norms=False):
            super().__init__()
            self.lin = nn.Linear(dim, dim)
            self.recycling = recycling
            self.track_norms = track_norms
            self.norms = []

        def forward(self, x):
            h = self.lin(x)
            if not self.recycling:
                h = h + 1
            else:
                h = h * h.abs().max().item()
            if self.track_norms:
                self.norms.append(h.norm().item())
            return h
    """)

HELD = textwrap.dedent("""\
    import torch
    from torch import nn


    class Inner(nn.Module):
        def __init__(self, dim, debug=False):
            super().__init__()
            self.lin = nn.Linear(dim, dim)
            self.debug = debug

        def forward(self, x):
            h = self.lin(x)
            if self.debug:
                h = h / h.abs().max().item()
            return h


    def build_debug(dim):
        return Inner(dim, debug=True)


    class M(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.inner = Inner(dim)

        def forward(self, x):
            return self.inner(x) + 1
    """)

LENGTHS = textwrap.dedent("""\
    import torch
    from torch import nn


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, hidden, lengths):
            hidden = self.proj(hidden)
            first = [hidden[i, :n].max(dim=0).values for i, n in enumerate(lengths)]
            return torch.stack(first)
    """)

X = {"tensor": [2, 8]}

# name: (model, spec without its model, markers of the lines torch reports a break on)
CASES: dict[str, tuple[str, dict[str, Any], set[str]]] = {
    # VALID: both flags at their defaults: neither branch is traced
    "defaults": (RECYCLING, {"init": {"args": [8]}, "inputs": [X], "calls": 2}, set()),
    # INVALID: the spec turns recycling on by keyword: the else branch breaks
    "keyword_on": (
        RECYCLING,
        {"init": {"args": [8], "kwargs": {"recycling": True}}, "inputs": [X], "calls": 2},
        {"h = h * h.abs().max().item()"},
    ),
    # INVALID: the spec turns tracking on by position
    "positional_on": (
        RECYCLING,
        {"init": {"args": [8, False, True]}, "inputs": [X], "calls": 2},
        {"self.norms.append(h.norm().item())"},
    ),
    # VALID: the held object is built under its default; the factory that builds it with
    # `debug=True` never runs in the spec's run
    "unbuilt_factory": (HELD, {"init": {"args": [8]}, "inputs": [X], "calls": 2}, set()),
    # VALID: the spec's list of ints: `n` is an int slice bound
    "lengths_list": (LENGTHS, {"inputs": [{"tensor": [3, 5, 8]}, [5, 3, 2]], "calls": 2}, set()),
}


test_the_prediction, test_the_prediction_matches_torch = case_tests(
    CASES, predicted_break_lines, torch_break_lines
)


def test_without_a_spec_the_branches_stay() -> None:
    """Without a spec the class may be built any way: both branches are reported."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        got = predicted_break_lines(Path(tmp), RECYCLING, None)
    assert got == marked_lines(
        RECYCLING, {"h = h * h.abs().max().item()", "self.norms.append(h.norm().item())"}
    )
