# spec: {"model": "ts_revin_mode_string.py:RevINForecaster", "init": {"args": [3, 24, 8]}, "inputs": [{"tensor": [4, 24, 3]}], "variants": [{"name": "denorm_only", "inputs": [{"tensor": [4, 24, 3]}], "kwargs": {"mode": "denorm"}}]}
import torch
from torch import nn


class RevIN(nn.Module):
    """Reversible instance normalisation (Kim et al.), called with a mode string and keeping its statistics on self."""

    def __init__(self, num_features, eps=1e-5, affine=True):
        super().__init__()
        self.eps = eps
        self.affine = affine
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))

    def forward(self, x, mode):
        if mode == "norm":
            self.mean = x.mean(dim=1, keepdim=True).detach()
            self.stdev = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
            x = (x - self.mean) / self.stdev
            return x * self.weight + self.bias if self.affine else x
        elif mode == "denorm":
            if self.affine:
                x = (x - self.bias) / (self.weight + self.eps * self.eps)
            return x * self.stdev + self.mean
        raise NotImplementedError(mode)


class RevINForecaster(nn.Module):
    """Linear long-horizon forecaster (DLinear/PatchTST habit) wrapped in RevIN."""

    def __init__(self, channels, lookback, horizon):
        super().__init__()
        self.revin = RevIN(channels)
        self.proj = nn.Linear(lookback, horizon)
        self.mode = "norm"

    def forward(self, x, mode="norm"):
        x = self.revin(x, "norm")
        y = self.proj(x.transpose(1, 2)).transpose(1, 2)
        return self.revin(y, "denorm") if mode == "denorm" else y
