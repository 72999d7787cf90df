# spec: {"model": "aug_rng_state_paired_noise.py:PairedNoiseAug", "init": {"args": [8]}, "inputs": [{"tensor": [3, 8]}, {"tensor": [3, 8]}], "mode": "train"}
import torch
from torch import nn


class PairedNoiseAug(nn.Module):
    """Stereo / paired-view augmentation: both views get the same noise by saving and
    restoring the CPU RNG state between the two draws."""

    def __init__(self, dim, sigma=0.1):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.sigma = sigma

    def forward(self, left, right):
        if self.training:
            state = torch.get_rng_state()
            left = left + self.sigma * torch.randn_like(left)
            torch.set_rng_state(state)
            right = right + self.sigma * torch.randn_like(right)
        return self.enc(left) - self.enc(right)
