# spec: {"model": "drop_seeded_generator_mask.py:FixedMaskDropout", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class FixedMaskDropout(nn.Module):
    """Dropout with a reproducible mask drawn from a private torch.Generator seeded per call
    (MC-dropout evaluation code)."""

    def __init__(self, dim, p=0.2, seed=1234):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.p = p
        self.seed = seed

    def forward(self, x):
        g = torch.Generator().manual_seed(self.seed)
        mask = (torch.rand(x.shape, generator=g) > self.p).to(x.dtype)
        return self.fc(x * mask / (1 - self.p))
