"""A plain residual conv block (clean: no break, no recompile over same-shape calls)."""

import torch
from torch import nn


class ResBlock(nn.Module):
    def __init__(self, ch: int = 8) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)
        self.norm = nn.GroupNorm(2, ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.norm(self.conv1(x)))
        return x + self.conv2(h)
