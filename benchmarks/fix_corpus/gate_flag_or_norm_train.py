# spec: {"model": "gate_flag_or_norm_train.py:AdaptiveDepthBlock", "inputs": [{"tensor": [4, 8], "init": "randn"}], "mode": "train"}
import torch
from torch import nn


class AdaptiveDepthBlock(nn.Module):
    """Adaptive-computation block trained with the deep path forced on by a flag or by a large
    input; the two sides call different submodules (their gradients differ if made branchless)."""

    def __init__(self, dim=8, thresh=2.0, always_deep=False):
        super().__init__()
        self.always_deep = always_deep
        self.thresh = thresh
        self.deep = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.shallow = nn.Linear(dim, dim)

    def forward(self, x):
        if self.always_deep or x.abs().mean() > self.thresh:
            y = self.deep(x)
        else:
            y = self.shallow(x)
        return torch.layer_norm(x + y, x.shape[-1:])
