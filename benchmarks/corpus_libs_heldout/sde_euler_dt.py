"""torchsde: an Ito SDE solved with Euler-Maruyama; dt is a Python float per call."""

import torch
import torchsde


class SDE(torch.nn.Module):
    noise_type = "diagonal"
    sde_type = "ito"

    def __init__(self, dim: int = 3) -> None:
        super().__init__()
        self.mu = torch.nn.Linear(dim, dim)
        self.sigma = torch.nn.Linear(dim, dim)

    def f(self, t, y):
        return self.mu(y)

    def g(self, t, y):
        return torch.sigmoid(self.sigma(y))


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sde = SDE()

    def forward(self, y0, dt: float):
        ts = torch.tensor([0.0, 0.1])
        ys = torchsde.sdeint(self.sde, y0, ts, method="euler", dt=dt)
        return ys[-1].sum(-1)


SPEC = {"variants": [{"inputs": [{"tensor": [2, 3]}, 0.02]}]}


def make():
    return Model(), (torch.randn(2, 3), 0.05)
