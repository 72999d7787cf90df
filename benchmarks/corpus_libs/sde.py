"""torchsde: an Euler-Maruyama SDE solve in forward."""

import torch
import torchsde


class SDE(torch.nn.Module):
    noise_type = "diagonal"
    sde_type = "ito"

    def __init__(self) -> None:
        super().__init__()
        self.mu = torch.nn.Linear(3, 3)

    def f(self, t, y):
        return self.mu(y)

    def g(self, t, y):
        return torch.sigmoid(y)


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sde = SDE()

    def forward(self, y0):
        ts = torch.linspace(0.0, 1.0, 3)
        return torchsde.sdeint(self.sde, y0, ts, method="euler", dt=0.25)[-1]


def make():
    return Model(), (torch.randn(2, 3),)
