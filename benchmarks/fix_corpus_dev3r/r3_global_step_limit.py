# spec: {"model": "r3_global_step_limit.py:StepTimed", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 12}
import torch
from torch import nn


class StepTimed(nn.Module):
    """A module that uses its global step to phase a sinusoidal gate (hits the recompile limit)."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.global_step = 0

    def forward(self, x):
        gate = 0.5 + 0.5 * torch.cos(torch.tensor(self.global_step * 0.1))
        self.global_step = self.global_step + 1
        return self.fc(x) * gate
