# spec: {"model": "state_hist_observer_histc.py:HistObservedLinear", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 2}
import torch
import torch.nn as nn


class HistObservedLinear(nn.Module):
    """Calibration with a histogram over the running range (torch.ao HistogramObserver style): the
    range is a pair of Python floats on the module, and torch.histc takes them as its bounds."""

    def __init__(self, dim, bins=32):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.bins = bins
        self.register_buffer("hist", torch.zeros(bins))
        self.lo = 0.0
        self.hi = 1.0

    def forward(self, x):
        y = self.linear(x)
        self.lo = min(self.lo, y.min().item())
        self.hi = max(self.hi, y.max().item())
        self.hist += torch.histc(y.detach(), self.bins, min=self.lo, max=self.hi)
        return y
