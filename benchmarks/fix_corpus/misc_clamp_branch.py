# spec: {"model": "misc_clamp_branch.py:SafeLog", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class SafeLog(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        m = h.min()
        y = h - m + 1 if m < 0 else h + 1
        return torch.log(y)
