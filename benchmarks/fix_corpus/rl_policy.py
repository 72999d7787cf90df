# spec: {"model": "rl_policy.py:ActorCritic", "init": {"args": [6, 3]}, "inputs": [{"tensor": [5, 6]}]}
import torch
import torch.nn as nn


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.actor = nn.Sequential(
            nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, act_dim)
        )
        self.critic = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.total_steps = 0

    def forward(self, obs):
        logits = self.actor(obs)
        value = self.critic(obs)
        self.total_steps += obs.shape[0]
        if value.mean() < -100:
            value = value.clamp(min=-100)
        return logits.softmax(-1), value
