import warnings

import torch
from torch import nn


class Checked(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.a(x)
        if h.abs().max() > 100:
            warnings.warn("large activations")
        return self.b(h)
