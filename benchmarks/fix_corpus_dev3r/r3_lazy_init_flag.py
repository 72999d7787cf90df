# spec: {"model": "r3_lazy_init_flag.py:ActNorm", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 3}
import torch
from torch import nn


class ActNorm(nn.Module):
    """Glow's ActNorm: data-dependent init on the first call, guarded by a Python flag."""

    def __init__(self, dim):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(dim))
        self.scale = nn.Parameter(torch.ones(dim))
        self.initialized = False

    def forward(self, x):
        if not self.initialized:
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.scale.copy_(1 / (x.std(0) + 1e-6))
            self.initialized = True
        return (x + self.loc) * self.scale
