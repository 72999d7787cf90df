# spec: {"model": "r3_running_loss_item_float.py:Trainer", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4, 8]}], "calls": 3}
import torch
from torch import nn


class Trainer(nn.Module):
    """A loss wrapper that keeps a running loss as a Python float via .item()."""

    def __init__(self, dim):
        super().__init__()
        self.net = nn.Linear(dim, dim)
        self.running_loss = 0.0

    def forward(self, x, y):
        loss = (self.net(x) - y).pow(2).mean()
        self.running_loss = 0.9 * self.running_loss + 0.1 * loss.item()
        return loss * 2
