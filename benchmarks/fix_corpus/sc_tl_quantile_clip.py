# spec: {"model": "sc_tl_quantile_clip.py:QuantileClip", "init": {"args": [12]}, "inputs": [{"tensor": [6, 12]}]}
import torch
from torch import nn


class QuantileClip(nn.Module):
    """Depth/regression head (kornia-like robust normalisation): activations clipped to the
    batch's 2nd-98th percentiles, read as a pair of numbers."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.q = torch.tensor([0.02, 0.98])

    def forward(self, x):
        h = self.fc(x)
        lo, hi = torch.quantile(h.detach().flatten(), self.q).tolist()
        h = h.clamp(lo, hi)
        return (h - lo) / (hi - lo + 1e-6)
