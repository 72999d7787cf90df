# spec: {"model": "gan_r1_lazy_reg_interval.py:DiscriminatorLoss", "init": {"args": []}, "inputs": [{"tensor": [4, 3, 16, 16]}, {"tensor": [4, 3, 16, 16]}], "mode": "train", "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class DiscriminatorLoss(nn.Module):
    """StyleGAN2 discriminator loss with lazy R1 regularisation every `reg_interval` steps, counted on the module."""

    def __init__(self, r1_gamma=10.0, reg_interval=2):
        super().__init__()
        self.D = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.2),
            nn.Flatten(), nn.Linear(32 * 4 * 4, 1),
        )
        self.r1_gamma = r1_gamma
        self.reg_interval = reg_interval
        self.step = 0

    def forward(self, real, fake):
        loss = F.softplus(self.D(fake.detach())).mean() + F.softplus(-self.D(real)).mean()
        if self.step % self.reg_interval == 0:
            real = real.detach().requires_grad_(True)
            out = self.D(real)
            (grad,) = torch.autograd.grad(out.sum(), real, create_graph=True)
            r1 = grad.pow(2).flatten(1).sum(1).mean()
            loss = loss + self.r1_gamma / 2 * r1 * self.reg_interval
        self.step += 1
        return loss
