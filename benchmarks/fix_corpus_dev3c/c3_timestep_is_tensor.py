# spec: {"model": "c3_timestep_is_tensor.py:TimestepEmbedding", "init": {"args": [16]}, "inputs": [{"tensor": [3, 16]}, {"tensor": [3], "dtype": "int64", "init": "randint", "low": 0, "high": 1000}], "calls": 3}
import math

import torch
from torch import nn


def get_timestep_embedding(timesteps, embedding_dim, max_period=10000):
    half = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(half, dtype=torch.float32, device=timesteps.device) / half
    emb = timesteps[:, None].float() * torch.exp(exponent)[None, :]
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if embedding_dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb


class TimestepEmbedding(nn.Module):
    """diffusers-style: timesteps may come as a Python number or a tensor of any rank."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.SiLU(), nn.Linear(4 * dim, dim))

    def forward(self, sample, timesteps):
        if not torch.is_tensor(timesteps):
            timesteps = torch.tensor([timesteps], dtype=torch.long, device=sample.device)
        elif len(timesteps.shape) == 0:
            timesteps = timesteps[None].to(sample.device)
        timesteps = timesteps.expand(sample.shape[0])
        return sample + self.mlp(get_timestep_embedding(timesteps, self.dim))
