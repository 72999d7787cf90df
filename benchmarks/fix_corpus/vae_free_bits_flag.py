# spec: {"model": "vae_free_bits_flag.py:FreeBitsVAE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [8, 16], "init": "randn"}], "mode": "train"}
import torch
from torch import nn
from torch.nn import functional as F


class FreeBitsVAE(nn.Module):
    """A VAE in the style of pythae / the "free bits" trick: the KL term enters the loss only
    once it exceeds the free-bits budget; the decision is a Python flag read by a later `if`."""

    def __init__(self, dim, latent, free_bits=0.5, beta=1.0):
        super().__init__()
        self.enc = nn.Linear(dim, 2 * latent)
        self.dec = nn.Linear(latent, dim)
        self.free_bits = free_bits
        self.beta = beta

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp() * 0.0
        recon = F.mse_loss(self.dec(z), x)
        kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        if kl > self.free_bits:
            use_kl = True
        else:
            use_kl = False
        loss = recon
        if use_kl:
            loss = loss + self.beta * kl
        return loss
