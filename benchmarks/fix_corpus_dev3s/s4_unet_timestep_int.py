# spec: {"model": "s4_unet_timestep_int.py:TinyUNet", "init": {"args": [4]}, "inputs": [{"tensor": [1, 4, 8, 8]}, 999], "variants": [{"inputs": [{"tensor": [1, 4, 8, 8]}, 979]}, {"inputs": [{"tensor": [1, 4, 8, 8]}, 959]}]}
import math

import torch
from torch import nn


def get_timestep_embedding(timesteps, embedding_dim, max_period=10000):
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(half_dim, dtype=torch.float32) / half_dim
    emb = timesteps[:, None].float() * torch.exp(exponent)[None, :]
    return torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)


class TinyUNet(nn.Module):
    """A diffusers-style UNet called by the pipeline with `timestep` as a Python int."""

    def __init__(self, channels, time_dim=32):
        super().__init__()
        self.time_dim = time_dim
        self.time_mlp = nn.Sequential(nn.Linear(time_dim, channels), nn.SiLU())
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, sample, timestep):
        timesteps = torch.tensor([timestep], dtype=torch.long, device=sample.device)
        timesteps = timesteps.expand(sample.shape[0])
        t_emb = self.time_mlp(get_timestep_embedding(timesteps, self.time_dim))
        return self.conv(sample) + t_emb[:, :, None, None]
