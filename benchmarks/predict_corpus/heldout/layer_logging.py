"""A layer stack that prints progress per layer (research-code debugging left in)."""

import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 3) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for idx, layer in enumerate(self.layers):
            x = torch.relu(layer(x))
            print(f"layer {idx} done")
        return x.sum(-1)
