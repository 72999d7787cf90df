# spec: {"model": "vq_fsq_unique_code_usage.py:FSQAutoencoder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 6, 6]}]}
import torch
import torch.nn as nn
from vector_quantize_pytorch import FSQ


class FSQAutoencoder(nn.Module):
    """Conv autoencoder with finite scalar quantisation; reports the fraction of codes in use."""

    def __init__(self, channels, levels=(8, 5, 5)):
        super().__init__()
        self.enc = nn.Conv2d(channels, len(levels), 1)
        self.fsq = FSQ(levels=list(levels))
        self.dec = nn.Conv2d(len(levels), channels, 1)
        self.codebook_size = int(torch.tensor(levels).prod())

    def forward(self, x):
        zq, indices = self.fsq(self.enc(x))
        used = torch.unique(indices).numel()
        recon = self.dec(zq)
        return nn.functional.mse_loss(recon, x), used / self.codebook_size
