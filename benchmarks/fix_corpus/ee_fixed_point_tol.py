# spec: {"model": "ee_fixed_point_tol.py:DEQBlock", "inputs": [{"tensor": [2, 8]}]}
import torch
from torch import nn


class DEQBlock(nn.Module):
    """A deep-equilibrium layer solved by fixed-point iteration with a tolerance (converges:
    the exit fires)."""

    def __init__(self, dim=8, max_iter=30, tol=1e-4):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        with torch.no_grad():
            self.lin.weight.mul_(0.3)
        self.max_iter = max_iter
        self.tol = tol

    def forward(self, x):
        z = torch.zeros_like(x)
        for _ in range(self.max_iter):
            z_next = torch.tanh(self.lin(z) + x)
            delta = z_next - z
            z = z_next
            if (delta.abs() < self.tol).all():
                break
        return z
