# spec: {"model": "misc_numpy.py:Scaler", "inputs": [{"tensor": [4, 8]}]}
import numpy as np
import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        peak = float(np.abs(h.detach().numpy()).max())
        return h / max(peak, 1.0)
