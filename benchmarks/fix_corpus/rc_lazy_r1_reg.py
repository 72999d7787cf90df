# spec: {"model": "rc_lazy_r1_reg.py:DiscriminatorLoss", "init": {"args": [12]}, "inputs": [{"tensor": [4, 12]}, {"tensor": [4, 12]}], "calls": 5, "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class DiscriminatorLoss(nn.Module):
    """StyleGAN2-style lazy regularization: the non-saturating discriminator loss every call,
    the R1-like penalty only every `reg_interval` calls (scaled by the interval)."""

    def __init__(self, dim, reg_interval=2, gamma=10.0):
        super().__init__()
        self.disc = nn.Sequential(nn.Linear(dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.reg_interval = reg_interval
        self.gamma = gamma
        self.step = 0

    def forward(self, real, fake):
        real_logits = self.disc(real)
        fake_logits = self.disc(fake)
        loss = F.softplus(fake_logits).mean() + F.softplus(-real_logits).mean()
        self.step += 1
        if self.step % self.reg_interval == 0:
            penalty = real_logits.pow(2).mean()
            loss = loss + self.gamma * 0.5 * penalty * self.reg_interval
        return loss
