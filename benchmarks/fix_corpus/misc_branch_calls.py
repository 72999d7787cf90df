# spec: {"model": "misc_branch_calls.py:Switch", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class Switch(nn.Module):
    def __init__(self):
        super().__init__()
        self.small = nn.Linear(8, 8)
        self.large = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        if x.mean() > 0:
            out = self.small(x)
        else:
            out = self.large(x)
        return out
