# spec: {"model": "rl_jacobian_action_sensitivity.py:SmoothPolicy", "init": {"args": [6, 2]}, "inputs": [{"tensor": [6]}]}
import torch
from torch import nn


class SmoothPolicy(nn.Module):
    """Deterministic policy with a smoothness penalty (CAPS-style): the Jacobian of the action
    with respect to the observation is taken in forward."""

    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, act_dim), nn.Tanh())

    def forward(self, obs):
        action = self.net(obs)
        jac = torch.autograd.functional.jacobian(self.net, obs, create_graph=True)
        smooth = jac.pow(2).sum()
        return action, smooth
