# spec: {"model": "rl_gae_done_branch.py:CriticWithGAE", "init": {"args": [6]}, "inputs": [{"tensor": [8, 6]}, {"tensor": [8]}, {"tensor": [8], "dtype": "bool", "p": 0.25}]}
import torch
from torch import nn


class CriticWithGAE(nn.Module):
    """A value network that computes GAE advantages over one rollout, resetting at episode ends."""

    def __init__(self, obs_dim, gamma=0.99, lam=0.95):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.gamma, self.lam = gamma, lam

    def forward(self, obs, rewards, dones):
        values = self.v(obs).squeeze(-1)
        advantages = torch.zeros_like(rewards)
        last_gae = 0.0
        for t in reversed(range(len(rewards))):
            if dones[t]:
                next_value = 0.0
                last_gae = 0.0
            else:
                next_value = values[t + 1] if t + 1 < len(values) else values[t]
            delta = rewards[t] + self.gamma * next_value - values[t]
            last_gae = delta + self.gamma * self.lam * last_gae
            advantages[t] = last_gae
        returns = advantages + values
        return advantages, (returns.detach() - values).pow(2).mean()
