# spec: {"model": "rl_ppo_clipfrac.py:PPOLoss", "inputs": [{"tensor": [16]}, {"tensor": [16]}, {"tensor": [16]}], "mode": "train", "calls": 3}
import torch
from torch import nn


class PPOLoss(nn.Module):
    """CleanRL-style clipped PPO objective that records diagnostics and flags early stopping."""

    def __init__(self, clip_coef=0.2, target_kl=0.015):
        super().__init__()
        self.clip_coef = clip_coef
        self.target_kl = target_kl
        self.diagnostics = {}
        self.early_stop = False

    def forward(self, new_logprob, old_logprob, advantages):
        logratio = new_logprob - old_logprob
        ratio = logratio.exp()
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > self.clip_coef).float().mean()
        adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - self.clip_coef, 1 + self.clip_coef)).mean()
        self.diagnostics = {"approx_kl": approx_kl.item(), "clipfrac": clipfrac.item()}
        if approx_kl > self.target_kl:
            self.early_stop = True
        return pg_loss
