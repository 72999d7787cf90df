"""Library break forms from user files on less-used libraries (issue 23, pred27b: the
``corpus_libs_dev3`` set): one-hot encoding whose number of classes is a tensor value
(mixture-of-experts' and st-moe-pytorch's ``safe_one_hot``: ``F.one_hot(ids, max(ids.max() + 2,
n))``), CL115. Each case is predicted and run through torch (``run_dynamic``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

ONE_HOT = """import torch
import torch.nn.functional as F
from torch import nn


def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    return F.one_hot(indexes, max(max_index + 1, max_length))[..., :max_length]  # BRK1


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 4)

    def forward(self, x):
        ids = self.gate(x).argmax(-1)
        fixed = F.one_hot(ids, 4)
        by_shape = F.one_hot(ids, max(x.shape[-1], 4))
        return safe_one_hot(ids, 4), fixed, by_shape
"""
ONE_HOT_KW = """import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, ids):
        return F.one_hot(ids, num_classes=ids.max() + 1).float()  # BRK1
"""

IDS = {"tensor": [5], "dtype": "int64", "init": "randint", "low": 0, "high": 4}

CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "one_hot_through_max": (ONE_HOT, {"inputs": [{"tensor": [3, 8]}]}),
    "one_hot_keyword": (ONE_HOT_KW, {"inputs": [IDS]}),
}


def _want(src: str) -> set[int]:
    return {line_of(src, m) for m in ("# BRK1", "# BRK2") if m in src}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines(tmp_path: Path, name: str) -> None:
    src, spec = CASES[name]
    assert predicted_break_lines(tmp_path, src, spec) == _want(src)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, spec = CASES[name]
    assert torch_break_lines(tmp_path, src, {**spec, "calls": 1}) == _want(src)
