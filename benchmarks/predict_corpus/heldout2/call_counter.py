"""A module that counts its forward calls to warm up a schedule (EMA teacher style)."""

import torch
from torch import nn


class Teacher(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)
        self.calls += 1
        return out
