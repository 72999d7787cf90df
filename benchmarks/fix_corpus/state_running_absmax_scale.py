# spec: {"model": "state_running_absmax_scale.py:DelayedScalingLinear", "init": {"args": [16, 8]}, "inputs": [{"tensor": [4, 16]}], "calls": 3}
import torch
import torch.nn as nn


class DelayedScalingLinear(nn.Module):
    """Low-precision linear with delayed scaling (the amax-history habit of fp8 recipes): the input is
    scaled by the largest magnitude seen so far, kept as a Python float on the module."""

    def __init__(self, in_features, out_features, qmax=127.0):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.qmax = qmax
        self.amax = 1e-4

    def forward(self, x):
        self.amax = max(self.amax, x.abs().max().item())
        scale = self.qmax / self.amax
        xq = torch.clamp(x * scale, -self.qmax, self.qmax) / scale
        return self.linear(xq)
