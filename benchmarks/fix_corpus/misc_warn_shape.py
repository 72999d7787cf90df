# spec: {"model": "misc_warn_shape.py:Net", "inputs": [{"tensor": [4, 8]}]}
import warnings

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        out = self.fc(x)
        if (out == 0).all():
            warnings.warn("dead layer")
        warnings.warn("Net.forward is deprecated", DeprecationWarning)
        return out
