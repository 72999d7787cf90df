# spec: {"model": "rl_td3_policy_delay.py:TD3Losses", "init": {"args": [5, 2]}, "inputs": [{"tensor": [16, 5]}, {"tensor": [16, 2]}, {"tensor": [16]}], "mode": "train", "calls": 4}
import torch
import torch.nn.functional as F
from torch import nn


class TD3Losses(nn.Module):
    """TD3 critic and delayed actor losses in one module (the actor is updated every second iteration)."""

    def __init__(self, obs_dim, act_dim, policy_freq=2):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, act_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(obs_dim + act_dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.policy_freq = policy_freq
        self.total_it = 0

    def forward(self, obs, action, target_q):
        self.total_it += 1
        q = self.critic(torch.cat([obs, action], -1)).squeeze(-1)
        critic_loss = F.mse_loss(q, target_q)
        actor_loss = torch.zeros(())
        if self.total_it % self.policy_freq == 0:
            actor_loss = -self.critic(torch.cat([obs, self.actor(obs)], -1)).mean()
        return critic_loss, actor_loss
