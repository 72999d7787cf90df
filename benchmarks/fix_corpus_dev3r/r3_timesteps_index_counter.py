# spec: {"model": "r3_timesteps_index_counter.py:DDPMStep", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3}
import torch
from torch import nn


class DDPMStep(nn.Module):
    """One denoising step per call; the scheduler's position is an int on the module."""

    def __init__(self, dim, steps=10):
        super().__init__()
        self.eps = nn.Linear(dim, dim)
        self.register_buffer("alphas", torch.linspace(0.99, 0.9, steps))
        self._index = 0

    def forward(self, x):
        a = self.alphas[self._index]
        self._index = self._index + 1
        return (x - (1 - a).sqrt() * self.eps(x)) / a.sqrt()
