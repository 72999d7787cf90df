# spec: {"model": "drop_fork_rng_seeded.py:SeededDropout", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}], "mode": "train"}
import torch
from torch import nn


class SeededDropout(nn.Module):
    """Dropout whose mask is reproducible per layer (research code for weight-tied recurrence):
    the RNG is forked and seeded before drawing the mask."""

    def __init__(self, dim, p=0.2, seed=1234):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.p = p
        self.seed = seed

    def forward(self, x):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            keep = torch.rand_like(x) > self.p
        return self.fc(x * keep / (1 - self.p))
