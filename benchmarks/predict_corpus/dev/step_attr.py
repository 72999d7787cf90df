import torch
from torch import nn


class Scheduled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.iteration = 0
        self.history = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.iteration = self.iteration + 1
        warm = min(1.0, self.iteration / 100)
        self.history.append(warm)
        return self.lin(x) * warm
