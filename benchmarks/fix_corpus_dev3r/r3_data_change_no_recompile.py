# spec: {"model": "r3_data_change_no_recompile.py:Gate", "init": {"args": [8]}, "inputs": [{"tensor": [3, 8]}, {"tensor": [3], "dtype": "bool", "p": 0.5}], "variants": [{"inputs": [{"tensor": [3, 8], "init": "rand"}, {"tensor": [3], "dtype": "bool", "p": 0.1}]}, {"inputs": [{"tensor": [3, 8], "init": "ones"}, {"tensor": [3], "dtype": "bool", "p": 0.9}]}]}
import torch
from torch import nn


class Gate(nn.Module):
    """Gated residual with a keep mask: new values every call, same shapes and dtypes."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.alpha = 0.5

    def forward(self, x, keep):
        h = torch.where(keep[:, None], self.fc(x), x)
        return self.alpha * h + (1 - self.alpha) * x
