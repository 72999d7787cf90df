# spec: {"model": "rc_euler_num_steps.py:FlowSampler", "init": {"args": [6]}, "inputs": [{"tensor": [3, 6]}, 4], "variants": [{"inputs": [{"tensor": [3, 6]}, 6]}, {"inputs": [{"tensor": [3, 6]}, 3]}]}
import torch
from torch import nn


class FlowSampler(nn.Module):
    """A rectified-flow / Euler ODE sampler whose number of steps is chosen per call."""

    def __init__(self, dim):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(dim + 1, 32), nn.Tanh(), nn.Linear(32, dim))

    def forward(self, x, num_steps):
        dt = 1.0 / num_steps
        for i in range(num_steps):
            t = torch.full_like(x[:, :1], i * dt)
            x = x + dt * self.v(torch.cat([x, t], -1))
        return x
