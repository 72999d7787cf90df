"""torchdiffeq: an adaptive solve (bosh3) with tolerances passed per call."""

import torch
from torchdiffeq import odeint


class Decay(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rate = torch.nn.Parameter(torch.tensor(0.7))

    def forward(self, t, y):
        return -self.rate * y


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.f = Decay()
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x, rtol: float = 1e-3):
        t = torch.linspace(0.0, 2.0, 3)
        y = odeint(self.f, x, t, rtol=rtol, atol=1e-4, method="bosh3")
        return self.head(y[-1])


SPEC = {"variants": [{"inputs": [{"tensor": [2, 4]}, 1e-4]}]}


def make():
    return Model(), (torch.randn(2, 4), 1e-3)
