# spec: {"model": "seed_dropout_mask.py:ReproducibleDropPath", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "mode": "train"}
import torch
from torch import nn


class ReproducibleDropPath(nn.Module):
    """Stochastic depth that reseeds the generator per call so two replicas drop the same samples."""

    def __init__(self, dim, drop_prob=0.2, seed=1234):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.drop_prob = drop_prob
        self.seed = seed

    def forward(self, x):
        out = self.fc(x)
        if self.training:
            torch.manual_seed(self.seed)
            keep = torch.rand(x.shape[0], 1) >= self.drop_prob
            out = out * keep / (1 - self.drop_prob)
        return x + out
