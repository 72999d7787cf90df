# spec: {"model": "ee_newton_sqrt_return.py:NewtonNorm", "inputs": [{"tensor": [4, 5]}]}
import torch
from torch import nn


def newton_rsqrt(v, iters, eps):
    """Newton iterations for 1/sqrt(v) (a solver helper, torchdiffeq-like tolerance check).
    The tolerance is tiny and iters small: the exit does not fire."""
    y = torch.ones_like(v)
    for i in range(iters):
        y_new = y * (1.5 - 0.5 * v * y * y)
        err = (y_new - y).abs().max()
        y = y_new
        if err < eps:
            return y
    return y


class NewtonNorm(nn.Module):
    def __init__(self, dim=5):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        var = h.pow(2).mean(-1, keepdim=True) * 0.5 + 0.5
        return h * newton_rsqrt(var, 4, 1e-12)
