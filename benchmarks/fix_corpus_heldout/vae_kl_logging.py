# spec: {"model": "vae_kl_logging.py:BetaVAE", "init": {"args": [20, 4]}, "inputs": [{"tensor": [6, 20]}], "mode": "train"}
import logging

import torch
from torch import nn

log = logging.getLogger("vae")


class BetaVAE(nn.Module):
    """A beta-VAE returning its loss terms and logging the KL at info level."""

    def __init__(self, dim, latent, beta=4.0):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 2 * latent))
        self.dec = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, dim))
        self.beta = beta

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        recon = self.dec(z)
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
        log.info("kl=%s", kl)
        rec = nn.functional.mse_loss(recon, x)
        return rec + self.beta * kl, recon
