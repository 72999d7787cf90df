# spec: {"model": "cnt_kl_warmup_ternary.py:BetaVAE", "init": {"kwargs": {"in_dim": 12, "z_dim": 4}}, "inputs": [{"tensor": [3, 12]}], "calls": 4, "mode": "train"}
import torch
from torch import nn


class BetaVAE(nn.Module):
    """A VAE whose KL term is switched on after a warm-up, as in many VAE training scripts
    that keep the update count on the model."""

    def __init__(self, in_dim, z_dim, warmup=2, beta=4.0):
        super().__init__()
        self.enc = nn.Linear(in_dim, 2 * z_dim)
        self.dec = nn.Linear(z_dim, in_dim)
        self.warmup = warmup
        self.beta = beta
        self.num_updates = 0

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * 0 * logvar.exp()
        recon = self.dec(z)
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
        scale = 0.0 if self.num_updates < self.warmup else 1.0
        self.num_updates = self.num_updates + 1
        loss = (recon - x).pow(2).mean() + self.beta * scale * kl
        return recon, loss
