# spec: {"model": "obs_setattr_proj_rescale.py:NamedProjections", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8], "init": "randn"}], "mode": "train"}
import torch
from torch import nn


class NamedProjections(nn.Module):
    """Projections registered by name with `setattr` (a habit of configurable attention code:
    `to_q`, `to_k`, ... from a list in the config) and read back with `getattr`; a projection
    whose output spreads too wide is halved."""

    def __init__(self, dim, names=("q", "v"), max_std=0.5):
        super().__init__()
        self.names = names
        for n in names:
            setattr(self, f"to_{n}", nn.Linear(dim, dim))
        self.max_std = max_std

    def forward(self, x):
        q = getattr(self, f"to_{self.names[0]}")(x)
        v = getattr(self, f"to_{self.names[1]}")(x)
        if q.std() > self.max_std:
            q = q / 2
        return (q.softmax(-1) * v).sum(-1)
