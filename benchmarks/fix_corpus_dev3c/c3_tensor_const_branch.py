# spec: {"model": "c3_tensor_const_branch.py:ScaledResidual", "init": {"args": [12]}, "inputs": [{"tensor": [3, 12]}], "calls": 3}
import torch
from torch import nn


class ScaledResidual(nn.Module):
    """Branches on Python numbers derived at init, never on a tensor's value."""

    def __init__(self, dim, residual_scale=1.0, num_layers=12):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.residual_scale = residual_scale / (2 * num_layers) ** 0.5
        self.use_scale = abs(self.residual_scale - 1.0) > 1e-6
        self.register_buffer("offset", torch.zeros(dim))

    def forward(self, x):
        h = self.fc(x)
        if self.use_scale:
            h = h * self.residual_scale
        h = torch.where(h > 0, h, 0.01 * h)
        mask = (x.abs() > 1.0).to(x.dtype)
        return x + h * (1 - mask) + mask * self.offset
