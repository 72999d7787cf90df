# spec: {"model": "rc_td3_policy_delay.py:TD3Losses", "init": {"args": [6, 2]}, "inputs": [{"tensor": [8, 6]}, {"tensor": [8, 2]}, {"tensor": [8, 1]}], "calls": 5, "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class TD3Losses(nn.Module):
    """TD3 (Fujimoto et al.) update as one module: the critic every step, the delayed actor
    every `policy_freq` steps, the counter kept as in the reference implementation."""

    def __init__(self, state_dim, action_dim, policy_freq=2):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(state_dim, 32), nn.ReLU(), nn.Linear(32, action_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(state_dim + action_dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.policy_freq = policy_freq
        self.total_it = 0

    def forward(self, state, action, target_q):
        self.total_it += 1
        current_q = self.critic(torch.cat([state, action], 1))
        loss = F.mse_loss(current_q, target_q)
        if self.total_it % self.policy_freq == 0:
            actor_loss = -self.critic(torch.cat([state, self.actor(state)], 1)).mean()
            loss = loss + actor_loss
        return loss
