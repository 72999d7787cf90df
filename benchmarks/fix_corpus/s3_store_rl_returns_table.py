# spec: {"model": "s3_store_rl_returns_table.py:ValueTargets", "init": {"args": [8]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6]}]}
import torch
from torch import nn


class ValueTargets(nn.Module):
    """RL value head (stable-baselines-like): the bootstrap value of the last state is read
    with `.item()` and written, discounted, into the returns table by a loop over time steps."""

    def __init__(self, obs_dim, gamma=0.9):
        super().__init__()
        self.v = nn.Linear(obs_dim, 1)
        self.gamma = gamma

    def forward(self, obs, rewards):
        values = self.v(obs).squeeze(-1)
        last = values[-1].item()
        returns = rewards.clone()
        returns[-1] += self.gamma * last
        for t in range(rewards.shape[0] - 2, -1, -1):
            returns[t] = rewards[t] + self.gamma * returns[t + 1]
        return ((values - returns) ** 2).mean()
