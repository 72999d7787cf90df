# spec: {"model": "einops_perceiver_len_crop.py:PerceiverPool", "init": {"args": [16, 32]}, "inputs": [{"tensor": [3, 20, 16]}, {"tensor": [3], "dtype": "int64", "init": "randint", "low": 5, "high": 21}]}
import torch
from einops import rearrange, repeat
from torch import nn


class PerceiverPool(nn.Module):
    """Perceiver-style latent cross-attention pooling (einops); each sequence is cropped to its true length first."""

    def __init__(self, in_dim, dim, num_latents=4, heads=2):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(num_latents, dim))
        self.to_kv = nn.Linear(in_dim, 2 * dim)
        self.to_q = nn.Linear(dim, dim)
        self.heads = heads

    def attend(self, latents, x):
        q = rearrange(self.to_q(latents), "b n (h d) -> b h n d", h=self.heads)
        k, v = rearrange(self.to_kv(x), "b m (two h d) -> two b h m d", two=2, h=self.heads)
        attn = (q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5).softmax(-1)
        return rearrange(attn @ v, "b h n d -> b n (h d)")

    def forward(self, x, lengths):
        outs = []
        for seq, n in zip(x, lengths):
            seq = seq[: int(n)]
            lat = repeat(self.latents, "n d -> b n d", b=1)
            outs.append(self.attend(lat, seq[None]))
        return torch.cat(outs).mean(1)
