# spec: {"model": "rl_value_repair.py:ValueHead", "init": {"args": [10]}, "inputs": [{"tensor": [32, 10]}, {"tensor": [32]}], "mode": "train"}
import torch
from torch import nn


class ValueHead(nn.Module):
    """A PPO critic that repairs non-finite returns and caps runaway values before the value loss (RL baselines habit)."""

    def __init__(self, obs_dim, hidden=32, value_cap=1.5):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.value_cap = value_cap

    def forward(self, obs, returns):
        values = self.v(obs).squeeze(-1)
        bad = ~torch.isfinite(returns)
        if bad.any():
            returns = returns.masked_fill(bad, 0.0)
        runaway = returns.abs() > self.value_cap
        if runaway.any():
            returns[runaway] = self.value_cap
        return values, 0.5 * (returns - values).pow(2).mean()
