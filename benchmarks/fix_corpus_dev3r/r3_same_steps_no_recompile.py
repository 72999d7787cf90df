# spec: {"model": "r3_same_steps_no_recompile.py:DDIMSampler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "kwargs": {"num_steps": 4, "eta": 0.0}, "calls": 3}
import torch
from torch import nn


class DDIMSampler(nn.Module):
    """A DDIM-style loop called repeatedly with the same number of steps and eta."""

    def __init__(self, dim):
        super().__init__()
        self.eps = nn.Linear(dim, dim)

    def forward(self, x, num_steps=50, eta=0.0):
        for i in range(num_steps):
            t = 1.0 - i / num_steps
            e = self.eps(x)
            x = x - (1.0 - eta) * t * e / num_steps
        return x
