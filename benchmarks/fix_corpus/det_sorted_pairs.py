# spec: {"model": "det_sorted_pairs.py:GreedyBoxMerger", "inputs": [{"tensor": [6, 4], "init": "rand"}, {"tensor": [6], "init": "rand"}]}
import torch
from torch import nn


class GreedyBoxMerger(nn.Module):
    """Weighted box fusion written with Python sorting, as in many Kaggle detection kernels."""

    def __init__(self, top=4):
        super().__init__()
        self.top = top

    def forward(self, boxes, scores):
        pairs = sorted(zip(scores, boxes), key=lambda p: p[0], reverse=True)[: self.top]
        weights = torch.stack([s for s, _ in pairs])
        kept = torch.stack([b for _, b in pairs])
        fused = (kept * weights[:, None]).sum(0) / weights.sum()
        return fused, kept
