# spec: {"model": "diff_timestep.py:TimestepEmbedding", "init": {"args": [16]}, "inputs": [{"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 1000}]}
import math

import torch
from torch import nn


class TimestepEmbedding(nn.Module):
    def __init__(self, dim, max_period=10000):
        super().__init__()
        self.dim = dim
        self.max_period = max_period
        self.linear = nn.Linear(dim, dim)

    def forward(self, timesteps):
        half = self.dim // 2
        exponent = -math.log(self.max_period) * torch.arange(half, dtype=torch.float32) / half
        args = timesteps[:, None].float() * torch.exp(exponent)[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        if timesteps.max() > 999:
            print("timestep out of range", timesteps.max())
        return self.linear(emb)
