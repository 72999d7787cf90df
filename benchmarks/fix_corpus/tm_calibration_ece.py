# spec: {"model": "tm_calibration_ece.py:CalibratedHead", "inputs": [{"tensor": [32, 6]}, {"tensor": [32], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
from torch import nn
from torchmetrics.functional.classification import binary_calibration_error


class CalibratedHead(nn.Module):
    """A temperature-scaled binary head that returns its expected calibration error (calibration papers' style)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)
        self.log_temp = nn.Parameter(torch.zeros(()))

    def forward(self, x, y):
        probs = torch.sigmoid(self.fc(x).squeeze(-1) / self.log_temp.exp())
        nll = nn.functional.binary_cross_entropy(probs, y.float())
        ece = binary_calibration_error(probs, y, n_bins=5)
        return nll, ece
