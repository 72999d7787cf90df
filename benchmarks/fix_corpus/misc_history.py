# spec: {"model": "misc_history.py:Tracker", "inputs": [{"tensor": [4, 8]}], "calls": 2}
import torch
from torch import nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.history = []

    def forward(self, x):
        y = self.fc(x)
        self.history.append(y.norm().item())
        return y
