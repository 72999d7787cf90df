# spec: {"model": "pl_regressor.py:LitRegressor", "inputs": [{"tensor": [8, 6]}], "calls": 3}
import math

import torch
from torch import nn


class LitRegressor(nn.Module):
    """The model of a LightningModule regression example; the step bookkeeping that the
    example kept on the module is still there."""

    def __init__(self, in_features=6, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.outputs = []

    def forward(self, x):
        y = self.net(x)
        rms = math.sqrt(y.pow(2).mean())
        self.outputs.append(y.detach())
        return y / (rms + 1e-6)
