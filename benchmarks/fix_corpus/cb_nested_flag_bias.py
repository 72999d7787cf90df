# spec: {"model": "cb_nested_flag_bias.py:ScoreCalibrator", "inputs": [{"tensor": [3, 10]}]}
import torch
from torch import nn


class ScoreCalibrator(nn.Module):
    """Kornia/torchmetrics-like calibration: a repair with a nested Python option."""

    def __init__(self, dim=10, shift=True):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.shift = shift
        self.margin = 0.2

    def calibrate(self, s):
        if s.min() < 0:
            lo = s.min(dim=-1, keepdim=True).values
            s = s - lo
            if self.shift:
                s = s + self.margin
            print("calibrated scores, min was", lo.min().item())
        return s

    def forward(self, x):
        return self.calibrate(self.lin(x)).log1p()
