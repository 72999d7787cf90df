"""Break forms of library code vendored into model files (issue 23, pred26a: the dev3g set).

A plain object held on the module and called (transformers' logits processors: its
``__call__`` runs, dynamo inlines it), and a ``requires_grad_()`` intermediate whose derived
tensor is returned (siren-pytorch's coordinate grid: GB8985 in training mode only, where
autograd records the computation), and a parameter annotated ``Union[int, Tensor]``
(torchmetrics' ``num_obs``) that callers give a Python int. Each case is predicted and run through torch
(``run_dynamic``); the table is in docs/corpus.md (pred26a).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

PROCESSOR = """import torch
from torch import nn


def banned_tokens(ids, n):
    out = []
    for i in range(n):
        out.append(ids[i].tolist())  # BRK1
    return out


class NoRepeat:
    def __init__(self, size):
        self.size = size

    def __call__(self, ids, scores):
        banned = banned_tokens(ids, scores.shape[0])
        return scores - len(banned)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.processor = NoRepeat(2)

    def forward(self, ids):
        h = self.emb(ids).mean(1)
        return self.processor(ids, h)
"""
GRID = """import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(2, 3)
        self.register_buffer("grid", torch.rand(6, 2))

    def forward(self, x):
        coords = self.grid.clone().detach().requires_grad_()  # BRK1
        out = self.net(coords)
        out = out.view(1, 6, 3)
        return out + x
"""
NUMBER_OR_TENSOR = """from typing import Union

import torch
from torch import Tensor, nn


def update(preds, target):
    return torch.sum((preds - target) ** 2, dim=0), target.size(0)


def compute(rss: Tensor, num_obs: Union[int, Tensor]) -> Tensor:
    if num_obs < 2:  # BRK1
        raise ValueError("Needs at least two samples")
    return rss / num_obs


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        p = self.fc(x)
        rss, n = update(p, x[:, :3])
        return compute(rss, n)
"""
IDS = {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 16}
CASES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "held_callable_object": (PROCESSOR, {"inputs": [IDS]}, ("BRK1",)),
    "requires_grad_derived_returned_train": (
        GRID,
        {"inputs": [{"tensor": [1, 6, 3]}], "mode": "train"},
        ("BRK1",),
    ),
    # `Union[int, Tensor]`: the caller's int decides (torchmetrics' `num_obs`)
    "number_or_tensor_given_an_int": (NUMBER_OR_TENSOR, {"inputs": [{"tensor": [5, 4]}]}, ()),
    "number_or_tensor_given_a_tensor": (
        NUMBER_OR_TENSOR.replace("target.size(0)", "target.new_tensor(target.size(0))"),
        {"inputs": [{"tensor": [5, 4]}]},
        ("BRK1",),
    ),
    # under no_grad the returned tensor has no history: nothing leaks
    "requires_grad_derived_returned_eval": (
        GRID,
        {"inputs": [{"tensor": [1, 6, 3]}], "mode": "eval"},
        (),
    ),
}


def _case(name: str) -> tuple[str, dict[str, Any], set[int]]:
    src, spec, markers = CASES[name]
    return src, spec, {line_of(src, m) for m in markers}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines(tmp_path: Path, name: str) -> None:
    src, spec, want = _case(name)
    assert predicted_break_lines(tmp_path, src, spec) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, spec, want = _case(name)
    assert torch_break_lines(tmp_path, src, {**spec, "calls": 1}) == want


def test_a_detached_copy_returned_is_no_leak(tmp_path: Path) -> None:
    """``.detach()`` gives a tensor without the intermediate's history: returning it leaks
    nothing, in training mode too."""
    src = GRID.replace("return out + x", "return out.detach() + x")
    spec = {"inputs": [{"tensor": [1, 6, 3]}], "mode": "train"}
    assert predicted_break_lines(tmp_path, src, spec) == set()
