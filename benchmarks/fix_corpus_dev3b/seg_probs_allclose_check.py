# spec: {"model": "seg_probs_allclose_check.py:CalibratedSegHead", "init": {"args": [8, 4]}, "inputs": [{"tensor": [1, 8, 6, 6]}]}
import torch
from torch import nn


class CalibratedSegHead(nn.Module):
    """A segmentation head whose mixture of two softmaxes is renormalised only when it does not
    already sum to one (research code)."""

    def __init__(self, c, k):
        super().__init__()
        self.a = nn.Conv2d(c, k, 1)
        self.b = nn.Conv2d(c, k, 1)

    def forward(self, x):
        probs = 0.7 * self.a(x).softmax(1) + 0.3 * self.b(x).softmax(1)
        if not torch.allclose(probs.sum(1), torch.ones_like(probs[:, 0]), atol=1e-4):
            probs = probs / probs.sum(1, keepdim=True)
        return probs.clamp_min(1e-6).log()
