# spec: {"model": "quant_hist_observer_range.py:ObservedConvBlock", "init": {"args": [4, 8]}, "inputs": [{"tensor": [2, 4, 10, 10]}]}
import torch
import torch.nn as nn


class _HistogramObserver(nn.Module):
    def __init__(self, bins=64):
        super().__init__()
        self.bins = bins
        self.register_buffer("histogram", torch.zeros(bins))
        self.min_val, self.max_val = float("inf"), float("-inf")

    def forward(self, x):
        lo, hi = x.detach().aminmax()
        lo, hi = lo.item(), hi.item()
        self.min_val, self.max_val = min(self.min_val, lo), max(self.max_val, hi)
        self.histogram += torch.histc(x.detach(), self.bins, min=self.min_val, max=self.max_val)
        return x


class ObservedConvBlock(nn.Module):
    """PTQ calibration pass: a histogram observer after each activation (eager-mode quantization habit)."""

    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.obs1 = _HistogramObserver()
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        self.obs2 = _HistogramObserver()

    def forward(self, x):
        x = self.obs1(torch.relu(self.conv1(x)))
        return self.obs2(torch.relu(self.conv2(x)))
