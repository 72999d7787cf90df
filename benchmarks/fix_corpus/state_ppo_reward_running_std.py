# spec: {"model": "state_ppo_reward_running_std.py:ValueHeadWithRewardNorm", "init": {"args": [6]}, "inputs": [{"tensor": [5, 6]}, {"tensor": [5]}], "mode": "train", "calls": 3}
import torch
import torch.nn as nn
import torch.nn.functional as F


class ValueHeadWithRewardNorm(nn.Module):
    """PPO value head with reward normalization by a running mean and variance (Welford updates of
    Python floats on the module, the RunningMeanStd habit of RL code bases), and a counter."""

    def __init__(self, obs_dim):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, 1))
        self.mean = 0.0
        self.var = 1.0
        self.count = 1e-4

    def forward(self, obs, rewards):
        batch_mean = rewards.mean().item()
        batch_var = rewards.var().item()
        n = rewards.shape[0]
        delta = batch_mean - self.mean
        tot = self.count + n
        self.mean = self.mean + delta * n / tot
        self.var = (self.var * self.count + batch_var * n + delta**2 * self.count * n / tot) / tot
        self.count = tot
        target = (rewards - self.mean) / (self.var + 1e-8) ** 0.5
        return F.mse_loss(self.v(obs).squeeze(-1), target)
