# spec: {"model": "lx_refine_return_converged.py:IterativeRefiner", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}]}
import torch
from torch import nn


def refine(step_fn, x, n_steps=10, tol=1e-3):
    for _ in range(n_steps):
        x_new = step_fn(x)
        if (x_new - x).abs().max() < tol:
            return x_new
        x = x_new
    return x


class IterativeRefiner(nn.Module):
    """RAFT/DEQ-style fixed-point refinement in a helper that returns as soon as the update is small."""

    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def step(self, x):
        return 0.5 * x + 0.1 * torch.tanh(self.lin(x))

    def forward(self, x):
        return refine(self.step, x, n_steps=12, tol=1e-4)
