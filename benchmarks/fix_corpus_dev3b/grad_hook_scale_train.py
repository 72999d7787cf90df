# spec: {"model": "grad_hook_scale_train.py:GradScaledBranch", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}], "mode": "train"}
from torch import nn


class GradScaledBranch(nn.Module):
    """An auxiliary branch whose gradient is scaled by a hook on the intermediate activation
    (domain-adaptation / gradient-reversal style research code)."""

    def __init__(self, dim, scale=-0.1):
        super().__init__()
        self.trunk = nn.Linear(dim, dim)
        self.aux = nn.Linear(dim, 2)
        self.scale = scale

    def forward(self, x):
        h = self.trunk(x).relu()
        if self.training:
            h.register_hook(lambda g: g * self.scale)
        return self.aux(h)
