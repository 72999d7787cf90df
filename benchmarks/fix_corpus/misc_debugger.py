# spec: {"model": "misc_debugger.py:Net", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 2)

    def forward(self, x):
        h = torch.relu(self.a(x))
        print("h:", h.shape, h.dtype)
        print("mean activation", h.mean())
        return self.b(h)
