"""torchdiffeq: a fixed-grid solve whose step size is a Python float the caller varies."""

import torch
from torchdiffeq import odeint


class Field(torch.nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(dim, dim)

    def forward(self, t, y):
        return torch.sin(t) * self.lin(y)


class NeuralODE(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.field = Field()

    def forward(self, y0, step: float):
        t = torch.tensor([0.0, 0.5, 1.0])
        ys = odeint(self.field, y0, t, method="midpoint", options={"step_size": step})
        return ys[-1]


SPEC = {
    "variants": [
        {"inputs": [{"tensor": [3, 6]}, 0.125]},
        {"inputs": [{"tensor": [5, 6]}, 0.125]},
    ]
}


def make():
    return NeuralODE(), (torch.randn(3, 6), 0.25)
