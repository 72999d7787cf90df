"""An MLP whose activation is chosen per call by name (config-driven research code)."""

import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor, act: str = "gelu") -> torch.Tensor:
        h = self.fc1(x)
        if act == "relu":
            h = F.relu(h)
        elif act == "silu":
            h = F.silu(h)
        else:
            h = F.gelu(h)
        return self.fc2(h)
