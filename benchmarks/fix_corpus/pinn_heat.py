# spec: {"model": "pinn_heat.py:HeatPINN", "init": {"args": [32]}, "inputs": [{"tensor": [16, 2], "init": "rand"}], "mode": "train"}
import torch
from torch import nn


class HeatPINN(nn.Module):
    """A physics-informed network returning u and the heat-equation residual u_t - k u_xx."""

    def __init__(self, hidden, k=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.k = k

    def forward(self, xt):
        xt = xt.clone().requires_grad_(True)
        u = self.net(xt)
        grads = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]
        u_x, u_t = grads[:, 0:1], grads[:, 1:2]
        u_xx = torch.autograd.grad(u_x.sum(), xt, create_graph=True)[0][:, 0:1]
        return u, u_t - self.k * u_xx
