# spec: {"model": "r3_activation_name_getattr.py:MLP", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, "gelu"], "variants": [{"inputs": [{"tensor": [2, 8]}, "silu"]}, {"inputs": [{"tensor": [2, 8]}, "relu"]}]}
import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    """An MLP whose activation is picked per call by name from torch.nn.functional."""

    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 16)
        self.fc2 = nn.Linear(16, dim)

    def forward(self, x, act="gelu"):
        fn = getattr(F, act)
        return self.fc2(fn(self.fc1(x)))
