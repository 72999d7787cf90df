"""A GRU-style recurrent cell unrolled over a fixed number of steps (clean)."""

import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, dim: int = 8, steps: int = 3) -> None:
        super().__init__()
        self.steps = steps
        self.z = nn.Linear(2 * dim, dim)
        self.h = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        for _ in range(self.steps):
            xh = torch.cat([x, h], -1)
            z = torch.sigmoid(self.z(xh))
            h = (1 - z) * h + z * torch.tanh(self.h(xh))
        return h
