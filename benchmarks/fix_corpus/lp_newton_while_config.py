# spec: {"model": "lp_newton_while_config.py:ImplicitLayer", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}]}
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class SolverConfig:
    tol: float = 1e-5
    max_iter: int = 12


class ImplicitLayer(nn.Module):
    """A fixed-point (DEQ-style) layer solved by damped iteration; tolerance and cap come from a
    config object, the counter checked second in the condition and stepped mid-body."""

    def __init__(self, dim, config=None):
        super().__init__()
        self.config = config or SolverConfig()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        z = torch.zeros_like(x)
        delta = torch.ones(())
        n_steps = 0
        while delta > self.config.tol and n_steps < self.config.max_iter:
            n_steps += 1
            z_next = 0.5 * z + 0.5 * torch.tanh(self.lin(z) + x)
            delta = (z_next - z).abs().max()
            z = z_next
        return z
