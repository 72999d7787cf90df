"""torchdiffeq: a fixed-grid ODE solve (rk4) in forward."""

import torch
from torchdiffeq import odeint


class Dynamics(torch.nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.net = torch.nn.Linear(dim, dim)

    def forward(self, t, y):
        return torch.tanh(self.net(y))


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.f = Dynamics()

    def forward(self, x):
        t = torch.linspace(0.0, 1.0, 4)
        return odeint(self.f, x, t, method="rk4", options={"step_size": 0.25})[-1]


def make():
    return Model(), (torch.randn(2, 4),)
