# spec: {"model": "energy_langevin_sampler.py:EnergyModel", "init": {"args": [8]}, "inputs": [{"tensor": [16, 8]}]}
import torch
from torch import nn


class EnergyModel(nn.Module):
    """Energy-based model (JEM/IGEBM style): negatives come from a few Langevin steps inside forward."""

    def __init__(self, dim, steps=5, step_size=0.1):
        super().__init__()
        self.energy = nn.Sequential(nn.Linear(dim, 32), nn.SiLU(), nn.Linear(32, 1))
        self.steps, self.step_size = steps, step_size

    @torch.enable_grad()
    def langevin(self, x):
        x = x.detach().requires_grad_(True)
        for _ in range(self.steps):
            e = self.energy(x).sum()
            (grad,) = torch.autograd.grad(e, x)
            x = (x - self.step_size * grad + 0.01 * torch.randn_like(x)).detach().requires_grad_(True)
        return x.detach()

    def forward(self, data):
        negatives = self.langevin(torch.rand_like(data) * 2 - 1)
        return self.energy(data).mean() - self.energy(negatives).mean()
