# spec: {"model": "std_seeded_rng_jitter.py:ScaleJitter", "inputs": [{"tensor": [4, 6]}]}
import random

import torch
from torch import nn


class ScaleJitter(nn.Module):
    """A fixed per-layer scale drawn from a seeded Python RNG (reproducible init-style jitter)."""

    def __init__(self, dim=6, seed=13):
        super().__init__()
        self.seed = seed
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        rng = random.Random(self.seed)
        scale = rng.uniform(0.9, 1.1)
        return self.fc(x) * scale
