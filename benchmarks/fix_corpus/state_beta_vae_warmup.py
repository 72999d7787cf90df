# spec: {"model": "state_beta_vae_warmup.py:WarmupVAE", "init": {"args": [12, 3]}, "inputs": [{"tensor": [5, 12]}], "mode": "train", "calls": 4}
import torch
import torch.nn as nn
import torch.nn.functional as F


class WarmupVAE(nn.Module):
    """A VAE whose KL weight warms up linearly with the training steps (Bowman et al. KL annealing),
    kept as a float on the module and raised in forward."""

    def __init__(self, in_dim, latent, warmup_inc=0.25, beta_max=1.0):
        super().__init__()
        self.enc = nn.Linear(in_dim, 2 * latent)
        self.dec = nn.Linear(latent, in_dim)
        self.warmup_inc = warmup_inc
        self.beta_max = beta_max
        self.beta = 0.0

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        recon = F.mse_loss(self.dec(mu), x)
        kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        if self.training:
            self.beta = min(self.beta + self.warmup_inc, self.beta_max)
        return recon + self.beta * kl
