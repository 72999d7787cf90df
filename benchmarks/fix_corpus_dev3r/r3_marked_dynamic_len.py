# spec: {"model": "r3_marked_dynamic_len.py:PosEmbed", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "dynamic": [{"input": 0, "dims": [1]}], "variants": [{"inputs": [{"tensor": [2, 7, 8]}]}, {"inputs": [{"tensor": [2, 11, 8]}]}]}
import torch
from torch import nn


class PosEmbed(nn.Module):
    """Sinusoidal positions for a sequence whose length is marked dynamic by the caller."""

    def __init__(self, dim):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv)

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device).float()
        ang = pos[:, None] * self.inv_freq[None, :]
        pe = torch.cat([ang.sin(), ang.cos()], -1)
        return x + pe
