# spec: {"model": "ode_rk4_block.py:ODEBlock", "init": {"args": [6]}, "inputs": [{"tensor": [3, 6]}]}
import torch
from torch import nn
from torchdiffeq import odeint


class ODEFunc(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))

    def forward(self, t, y):
        return self.net(y)


class ODEBlock(nn.Module):
    """A neural-ODE block integrated with torchdiffeq (fixed-step RK4), as in the torchdiffeq examples."""

    def __init__(self, dim):
        super().__init__()
        self.func = ODEFunc(dim)
        self.register_buffer("t", torch.tensor([0.0, 1.0]))

    def forward(self, y0):
        return odeint(self.func, y0, self.t, method="rk4", options={"step_size": 0.25})[-1]
