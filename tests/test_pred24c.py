"""Issue 23, pred24c: clean models in real styles (dev3c), no break predicted where torch 2.13
traces none, checked against torch.

A name a tensor test rules out is no tensor there: in the ``else``/``elif`` of ``if
torch.is_tensor(mask):`` or ``if isinstance(mask, torch.Tensor):`` (a tuple of types holding
``torch.Tensor`` too), and in the body of ``if not torch.is_tensor(t):``, ``float(mask)`` reads
no tensor data whatever the caller passes (FusionHead's ``elif mask is not None: feats *
float(mask)``, diffusers' timestep handling). The side where it is a tensor is left as it was, and
a test of a subclass (``torch.nn.Parameter``, ``torch.FloatTensor``) narrows nothing: a plain
tensor fails it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"

# name: (forward, the markers of the lines torch reports)
CASES: dict[str, tuple[str, set[str]]] = {
    # VALID: the elif of a positive test (dev3c's c3_isinstance_multi_input)
    "is_tensor_elif": (
        """
    def forward(self, x, mask=None):
        if torch.is_tensor(mask):
            x = x * mask
        elif mask is not None:
            x = x * float(mask)
        return x
""",
        set(),
    ),
    # VALID: the else of isinstance with a tuple holding torch.Tensor
    "isinstance_tuple_else": (
        """
    def forward(self, x, mask=None):
        if isinstance(mask, (torch.Tensor, list)):
            x = x * torch.as_tensor(mask)
        else:
            x = x * float(mask)
        return x
""",
        set(),
    ),
    # VALID: the body of a negated test
    "not_is_tensor_body": (
        """
    def forward(self, x, mask=None):
        if not torch.is_tensor(mask):
            return x * float(mask)
        return x * mask
""",
        set(),
    ),
    # INVALID: a subclass test narrows nothing: a plain tensor takes the else and breaks
    "parameter_subclass": (
        """
    def forward(self, x, mask=None):
        if isinstance(mask, nn.Parameter):
            return x
        return x * float(mask)
""",
        {"float(mask)"},
    ),
    # INVALID: the tensor side still breaks
    "tensor_side": (
        """
    def forward(self, x, mask=None):
        if torch.is_tensor(mask):
            return x * float(mask)
        return x
""",
        {"float(mask)"},
    ),
}

SPEC: dict[str, Any] = {"inputs": [{"tensor": [2, 3]}, {"tensor": []}]}


def _case(name: str) -> tuple[str, set[int]]:
    body, markers = CASES[name]
    src = HEAD + body.lstrip("\n")
    return src, {line_of(src, m) for m in markers}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines(tmp_path: Path, name: str) -> None:
    src, want = _case(name)
    assert predicted_break_lines(tmp_path, src, SPEC) == want
    assert predicted_break_lines(tmp_path, src, None) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, want = _case(name)
    assert torch_break_lines(tmp_path, src, {**SPEC, "calls": 1}) == want
