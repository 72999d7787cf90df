# spec: {"model": "rl_ppo_clip_active_coef.py:PPOClipLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [16, 8]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 4}, {"tensor": [16]}, {"tensor": [16]}], "mode": "train"}
import torch
from torch import nn
from torch.distributions import Categorical


class PPOClipLoss(nn.Module):
    """PPO surrogate (stable-baselines3 flavour) whose entropy bonus is switched on only while
    the policy moved past the clip range in this batch: a Python 1/0 picked by a tensor test."""

    def __init__(self, obs_dim, n_actions, clip_range=0.2, ent_coef=0.01):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.clip_range = clip_range
        self.ent_coef = ent_coef

    def forward(self, obs, actions, old_log_prob, advantages):
        dist = Categorical(logits=self.policy(obs))
        ratio = torch.exp(dist.log_prob(actions) - old_log_prob)
        surr1 = advantages * ratio
        surr2 = advantages * torch.clamp(ratio, 1 - self.clip_range, 1 + self.clip_range)
        policy_loss = -torch.min(surr1, surr2).mean()
        if (ratio - 1).abs().max() > self.clip_range:
            n_clipped = 1
        else:
            n_clipped = 0
        entropy_loss = -dist.entropy().mean()
        return policy_loss + self.ent_coef * n_clipped * entropy_loss
