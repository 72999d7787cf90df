# spec: {"model": "quant_minmax_observer_float.py:QATLinearNet", "init": {"args": [16, 4]}, "inputs": [{"tensor": [8, 16]}], "mode": "train"}
import torch
from torch import nn


class MinMaxFakeQuant(nn.Module):
    """Hand-written QAT observer: running min/max kept as Python floats, then fake quantisation."""

    def __init__(self, bits=8, momentum=0.1):
        super().__init__()
        self.qmax = 2**bits - 1
        self.momentum = momentum
        self.min_val = None
        self.max_val = None

    def forward(self, x):
        if self.training:
            lo, hi = x.min().item(), x.max().item()
            if self.min_val is None:
                self.min_val, self.max_val = lo, hi
            else:
                self.min_val += self.momentum * (lo - self.min_val)
                self.max_val += self.momentum * (hi - self.max_val)
        scale = max(self.max_val - self.min_val, 1e-8) / self.qmax
        zero_point = round(-self.min_val / scale)
        return torch.fake_quantize_per_tensor_affine(x, scale, zero_point, 0, self.qmax)


class QATLinearNet(nn.Module):
    """Two-layer MLP with fake-quantised activations for quantisation-aware training."""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, 32)
        self.q1 = MinMaxFakeQuant()
        self.fc2 = nn.Linear(32, out_dim)

    def forward(self, x):
        return self.fc2(self.q1(torch.relu(self.fc1(x))))
