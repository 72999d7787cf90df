"""torchsde: a neural SDE (diagonal noise) integrated with Euler-Maruyama over a few steps."""

import torch
import torchsde


class SDE(torch.nn.Module):
    noise_type = "diagonal"
    sde_type = "ito"

    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.mu = torch.nn.Linear(dim, dim)
        self.sigma = torch.nn.Linear(dim, dim)

    def f(self, t, y):
        return self.mu(y)

    def g(self, t, y):
        return torch.sigmoid(self.sigma(y))


class LatentSDE(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sde = SDE()

    def forward(self, y0):
        ts = torch.linspace(0, 1, 5)
        ys = torchsde.sdeint(self.sde, y0, ts, method="euler", dt=0.1)
        return ys[-1]


def make():
    torch.manual_seed(0)
    return LatentSDE(), (torch.randn(3, 4),)
