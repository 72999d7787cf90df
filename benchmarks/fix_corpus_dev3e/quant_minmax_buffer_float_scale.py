# spec: {"model": "quant_minmax_buffer_float_scale.py:ActFakeQuant", "init": {"args": [8, 8]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class ActFakeQuant(nn.Module):
    """Hand-rolled activation observer (running min/max buffers, updated in training) with the
    affine qparams computed as Python numbers for `fake_quantize_per_tensor_affine`."""

    def __init__(self, fin, fout, bits=8):
        super().__init__()
        self.fc = nn.Linear(fin, fout)
        self.register_buffer("min_val", torch.tensor(0.0))
        self.register_buffer("max_val", torch.tensor(0.0))
        self.qmax = 2**bits - 1
        self.momentum = 0.1

    def forward(self, x):
        y = self.fc(x)
        if self.training:
            self.min_val.lerp_(y.detach().min(), self.momentum)
            self.max_val.lerp_(y.detach().max(), self.momentum)
        scale = float(self.max_val - self.min_val) / self.qmax or 1e-8
        zero_point = int(round(-self.min_val.item() / scale))
        return torch.fake_quantize_per_tensor_affine(y, scale, zero_point, 0, self.qmax)
