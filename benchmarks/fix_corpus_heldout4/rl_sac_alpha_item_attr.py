# spec: {"model": "rl_sac_alpha_item_attr.py:SACActorLoss", "init": {"args": [6, 2]}, "inputs": [{"tensor": [16, 6]}, {"tensor": [16, 2]}]}
import math

import torch
from torch import nn
from torch.distributions import Normal


class SACActorLoss(nn.Module):
    """SAC actor and temperature losses with automatic entropy tuning (spinning-up / CleanRL habit)."""

    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, 2 * act_dim))
        self.q = nn.Linear(obs_dim + act_dim, 1)
        self.log_alpha = nn.Parameter(torch.zeros(1))
        self.target_entropy = -float(act_dim)
        self.alpha = math.exp(0.0)

    def forward(self, obs, noise):
        mu, log_std = self.policy(obs).chunk(2, dim=-1)
        std = log_std.clamp(-5, 2).exp()
        pre = mu + std * noise
        action = torch.tanh(pre)
        logp = Normal(mu, std).log_prob(pre).sum(-1) - torch.log(1 - action.pow(2) + 1e-6).sum(-1)
        q = self.q(torch.cat([obs, action], dim=-1)).squeeze(-1)
        actor_loss = (self.alpha * logp - q).mean()
        alpha_loss = -(self.log_alpha * (logp + self.target_entropy).detach()).mean()
        self.alpha = self.log_alpha.exp().item()
        return actor_loss, alpha_loss
