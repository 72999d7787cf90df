# spec: {"model": "r3_ema_momentum_ramp.py:BYOLHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 3}
import torch
from torch import nn


class BYOLHead(nn.Module):
    """A BYOL-style target update whose momentum is ramped as a Python float attribute."""

    def __init__(self, dim):
        super().__init__()
        self.online = nn.Linear(dim, dim)
        self.register_buffer("target_w", torch.zeros(dim, dim))
        self.tau = 0.9

    def forward(self, x):
        with torch.no_grad():
            self.target_w.mul_(self.tau).add_((1 - self.tau) * self.online.weight)
        self.tau = min(0.999, self.tau + 0.02)
        return self.online(x), x @ self.target_w.t()
