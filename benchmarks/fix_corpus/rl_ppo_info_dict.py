# spec: {"model": "rl_ppo_info_dict.py:PPOValueLoss", "init": {"args": [6]}, "inputs": [{"tensor": [32, 6]}, {"tensor": [32]}, {"tensor": [32]}]}
import torch
from torch import nn


class PPOValueLoss(nn.Module):
    """Clipped value loss (stable-baselines3 style) that records clipping info when it happens."""

    def __init__(self, obs_dim, clip_range_vf=0.2):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.clip_range_vf = clip_range_vf
        self.info = {"vf_clipped": torch.zeros(()), "max_dv": torch.zeros(())}

    def forward(self, obs, old_values, returns):
        values = self.critic(obs).squeeze(-1)
        dv = values - old_values
        if dv.abs().max() > self.clip_range_vf:
            self.info["vf_clipped"] = (dv.abs() > self.clip_range_vf).float().mean()
            self.info["max_dv"] = dv.abs().max().detach()
        values_pred = old_values + torch.clamp(dv, -self.clip_range_vf, self.clip_range_vf)
        return 0.5 * ((returns - values_pred) ** 2).mean()
