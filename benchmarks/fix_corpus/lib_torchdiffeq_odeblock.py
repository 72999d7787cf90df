# spec: {"model": "lib_torchdiffeq_odeblock.py:ODEClassifier", "inputs": [{"tensor": [4, 8]}], "mode": "train"}
import torch
import torchdiffeq
from torch import nn


class ODEFunc(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))

    def forward(self, t, y):
        return self.net(y)


class ODEClassifier(nn.Module):
    """Neural-ODE block (torchdiffeq examples style): odeint with solver keywords, last state kept."""

    def __init__(self, dim=8, classes=3):
        super().__init__()
        self.odefunc = ODEFunc(dim)
        self.register_buffer("integration_time", torch.tensor([0.0, 1.0]))
        self.fc = nn.Linear(dim, classes)

    def forward(self, x):
        out = torchdiffeq.odeint(
            self.odefunc, x, self.integration_time, method="rk4", options=dict(step_size=0.25)
        )
        return self.fc(out[-1])
