# spec: {"model": "r3_warmup_property_step.py:AuxLossBlock", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3}
import torch
from torch import nn


class AuxLossBlock(nn.Module):
    """An auxiliary loss weight exposed as a property over a step counter."""

    def __init__(self, dim, ramp=100):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self._step = 0
        self.ramp = ramp

    @property
    def aux_weight(self):
        return min(1.0, self._step / self.ramp)

    def forward(self, x):
        y = self.fc(x)
        aux = y.pow(2).mean() * self.aux_weight
        self._step += 1
        return y, aux
