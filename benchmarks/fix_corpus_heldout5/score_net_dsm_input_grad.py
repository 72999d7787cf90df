# spec: {"model": "score_net_dsm_input_grad.py:EnergyScoreModel", "init": {"args": [2]}, "inputs": [{"tensor": [16, 2]}]}
import torch
from torch import nn


class EnergyScoreModel(nn.Module):
    """Energy-based model whose score is -dE/dx; trained with denoising score matching."""

    def __init__(self, dim, sigma=0.1):
        super().__init__()
        self.energy = nn.Sequential(nn.Linear(dim, 64), nn.Softplus(), nn.Linear(64, 64), nn.Softplus(), nn.Linear(64, 1))
        self.sigma = sigma

    def score(self, x):
        with torch.enable_grad():
            x = x.requires_grad_()
            e = self.energy(x).sum()
            return -torch.autograd.grad(e, x, create_graph=True)[0]

    def forward(self, x):
        noise = torch.randn_like(x) * self.sigma
        target = -noise / self.sigma**2
        s = self.score(x + noise)
        return 0.5 * ((s - target) ** 2).sum(-1).mean() * self.sigma**2
