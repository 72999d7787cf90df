import torch
from torch import nn


class RunConfig:
    def __init__(self) -> None:
        self.warmup = True
        self.scale = 1.0


class Warmed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cfg = RunConfig()
        self.lin = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        if self.cfg.warmup:
            y = y * 0.5
            self.cfg.warmup = False
        return y
