"""BatchNorm-like running statistics with a Python step counter on the module (EMA warm-up)."""

import torch
from torch import nn


class RunningNorm(nn.Module):
    def __init__(self, dim: int = 8, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        self.num_updates = 0
        self.register_buffer("running_mean", torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.num_updates += 1
        m = min(self.momentum, 1.0 / self.num_updates)
        self.running_mean.mul_(1 - m).add_(x.mean(0).detach(), alpha=m)
        return x - self.running_mean
