# spec: {"model": "wl_residual_tolerance.py:PowerIteration", "inputs": [{"tensor": [6, 6]}]}
import torch
from torch import nn


class PowerIteration(nn.Module):
    """Spectral-norm power iteration until the change is small, at most n_iter steps."""

    def __init__(self, dim=6, n_iter=20):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.n_iter = n_iter

    def forward(self, x):
        w = self.lin.weight
        v = torch.ones(w.shape[1]) / w.shape[1] ** 0.5
        it = 0
        change = torch.ones(())
        while it < self.n_iter and change > 1e-3:
            u = w @ v
            u = u / u.norm()
            v_new = w.t() @ u
            v_new = v_new / v_new.norm()
            change = (v_new - v).abs().max()
            v = v_new
            it += 1
        sigma = (w @ v).norm()
        return self.lin(x) / sigma
