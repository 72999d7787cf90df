# spec: {"model": "gan_grad_penalty.py:CriticWithGP", "init": {"args": [12]}, "inputs": [{"tensor": [4, 12]}, {"tensor": [4, 12]}], "mode": "train"}
import torch
from torch import nn


class CriticWithGP(nn.Module):
    """A WGAN-GP critic whose forward also returns the gradient penalty on interpolates."""

    def __init__(self, dim, gp_weight=10.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.gp_weight = gp_weight

    def forward(self, real, fake):
        alpha = torch.rand(real.size(0), 1)
        interp = (alpha * real + (1 - alpha) * fake).detach()
        interp.requires_grad_()
        score = self.net(interp)
        grad = torch.autograd.grad(score, interp, grad_outputs=torch.ones_like(score), create_graph=True)[0]
        gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        return self.net(real).mean() - self.net(fake).mean(), self.gp_weight * gp
