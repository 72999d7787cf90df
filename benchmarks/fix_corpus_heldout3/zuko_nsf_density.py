# spec: {"model": "zuko_nsf_density.py:ConditionalDensity", "init": {"args": [3, 4]}, "inputs": [{"tensor": [16, 3]}, {"tensor": [16, 4]}]}
import torch
import zuko
from torch import nn


class ConditionalDensity(nn.Module):
    """Simulation-based inference: a zuko neural spline flow over parameters given an observation embedding."""

    def __init__(self, theta_dim, obs_dim):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU())
        self.flow = zuko.flows.NSF(theta_dim, 16, transforms=2, hidden_features=[32])

    def forward(self, theta, obs):
        return -self.flow(self.embed(obs)).log_prob(theta).mean()
