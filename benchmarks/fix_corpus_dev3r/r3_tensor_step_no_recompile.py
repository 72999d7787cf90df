# spec: {"model": "r3_tensor_step_no_recompile.py:Warmup", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, {"tensor": [], "init": "full", "value": 3.0}], "variants": [{"inputs": [{"tensor": [2, 8]}, {"tensor": [], "init": "full", "value": 7.0}]}, {"inputs": [{"tensor": [2, 8]}, {"tensor": [], "init": "full", "value": 11.0}]}]}
import torch
from torch import nn


class Warmup(nn.Module):
    """A warmup factor from a step given as a 0-d tensor (a value torch does not guard on)."""

    def __init__(self, dim, warmup=10.0):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.warmup = warmup

    def forward(self, x, step):
        factor = torch.clamp(step / self.warmup, max=1.0)
        return self.fc(x) * factor
