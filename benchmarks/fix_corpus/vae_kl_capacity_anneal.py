# spec: {"model": "vae_kl_capacity_anneal.py:CapacityVAE", "init": {"kwargs": {"in_dim": 20, "latent": 4}}, "inputs": [{"tensor": [6, 20]}], "mode": "train", "calls": 3}
import torch
import torch.nn as nn
import torch.nn.functional as F


class CapacityVAE(nn.Module):
    """Burgess et al. beta-VAE with a KL capacity C that rises each step until it reaches c_max."""

    def __init__(self, in_dim, latent, gamma=10.0, c_max=5.0, c_step=0.5):
        super().__init__()
        self.enc = nn.Linear(in_dim, 2 * latent)
        self.dec = nn.Linear(latent, in_dim)
        self.gamma = gamma
        self.c_max = c_max
        self.c_step = c_step
        self.capacity = 0.0

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        recon = F.mse_loss(self.dec(z), x, reduction="sum") / x.size(0)
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
        if self.training and kl.item() > self.capacity * 0.5:
            self.capacity = min(self.capacity + self.c_step, self.c_max)
        return recon + self.gamma * (kl - self.capacity).abs()
