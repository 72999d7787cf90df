import torch
from torch import nn


class Halting(nn.Module):
    def __init__(self, depth: int = 4) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        total = 0.0
        for block in self.blocks:
            x = torch.tanh(block(x))
            total += x.norm().item()
        return x * total
