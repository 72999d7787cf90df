# spec: {"model": "aug_noise_level_float_arg.py:DenoisingAutoencoder", "init": {"args": [20]}, "inputs": [{"tensor": [4, 20]}], "kwargs": {"noise_std": 0.1}, "mode": "train", "variants": [{"inputs": [{"tensor": [4, 20]}], "kwargs": {"noise_std": 0.2}}, {"inputs": [{"tensor": [4, 20]}], "kwargs": {"noise_std": 0.3}}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class DenoisingAutoencoder(nn.Module):
    """Denoising AE trained with a corruption level that the curriculum raises between epochs."""

    def __init__(self, dim, hidden=8):
        super().__init__()
        self.enc = nn.Linear(dim, hidden)
        self.dec = nn.Linear(hidden, dim)

    def forward(self, x, noise_std=0.1):
        noisy = x + noise_std * torch.randn_like(x)
        recon = self.dec(torch.relu(self.enc(noisy)))
        return F.mse_loss(recon, x) / (1.0 + noise_std)
