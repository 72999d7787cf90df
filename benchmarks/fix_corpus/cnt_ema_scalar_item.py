# spec: {"model": "cnt_ema_scalar_item.py:GradScaleMonitor", "init": {"args": [6]}, "inputs": [{"tensor": [3, 6]}], "calls": 3}
import torch
from torch import nn


class GradScaleMonitor(nn.Module):
    """A block that tracks an exponential moving average of its activation scale, as a
    scalar on the module (kornia / detectron-style monitoring)."""

    def __init__(self, dim, momentum=0.9):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.momentum = momentum
        self.act_ema = 0.0

    def forward(self, x):
        h = torch.relu(self.fc(x))
        scale = h.abs().mean().item()
        self.act_ema = self.momentum * self.act_ema + (1 - self.momentum) * scale
        return h
