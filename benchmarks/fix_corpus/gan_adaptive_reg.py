# spec: {"model": "gan_adaptive_reg.py:AdaptiveDiscriminatorLoss", "init": {"args": [10]}, "inputs": [{"tensor": [8, 10]}, {"tensor": [8, 10]}]}
import torch
from torch import nn
import torch.nn.functional as F


class AdaptiveDiscriminatorLoss(nn.Module):
    """StyleGAN-ADA-like discriminator loss: the overfitting heuristic picks both the augment
    probability step and the regularisation weight."""

    def __init__(self, dim, target=0.6):
        super().__init__()
        self.disc = nn.Sequential(nn.Linear(dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.target = target

    def forward(self, real, fake):
        real_logits = self.disc(real)
        fake_logits = self.disc(fake)
        rt = torch.sign(real_logits).mean()
        if rt > self.target:
            step, reg_weight = 0.01, 10.0
        else:
            step, reg_weight = -0.01, 1.0
        loss = F.softplus(fake_logits).mean() + F.softplus(-real_logits).mean()
        return loss + reg_weight * real_logits.pow(2).mean() + step * fake_logits.mean()
