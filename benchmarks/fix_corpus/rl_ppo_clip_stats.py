# spec: {"model": "rl_ppo_clip_stats.py:PPOPolicyLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [16, 8]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 4}, {"tensor": [16]}, {"tensor": [16]}]}
import torch
from torch import nn
from torch.distributions import Categorical


class PPOPolicyLoss(nn.Module):
    """PPO clipped surrogate (cleanrl style) that also fills a stats dict for logging."""

    def __init__(self, obs_dim, n_actions, clip_coef=0.2):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.clip_coef = clip_coef
        self.stats = {}

    def forward(self, obs, actions, old_logprob, advantages):
        dist = Categorical(logits=self.actor(obs))
        logratio = dist.log_prob(actions) - old_logprob
        ratio = logratio.exp()
        pg_loss1 = -advantages * ratio
        pg_loss2 = -advantages * torch.clamp(ratio, 1 - self.clip_coef, 1 + self.clip_coef)
        pg_loss = torch.max(pg_loss1, pg_loss2).mean()
        if ratio.max() > 1 + self.clip_coef:
            self.stats["clipfrac"] = ((ratio - 1.0).abs() > self.clip_coef).float().mean()
        else:
            self.stats["clipfrac"] = torch.zeros(())
        return pg_loss - 0.01 * dist.entropy().mean()
