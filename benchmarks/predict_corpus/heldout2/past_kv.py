"""Decoder step with an optional past key/value cache tuple (GPT-2 style `layer_past`)."""

import torch
from torch import nn


class DecoderStep(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.q = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, past_key=None, past_value=None, use_cache: bool = True):
        k, v = self.k(x), self.v(x)
        if past_key is not None:
            k = torch.cat([past_key, k], dim=1)
            v = torch.cat([past_value, v], dim=1)
        att = torch.softmax(self.q(x) @ k.transpose(1, 2), -1) @ v
        if use_cache:
            return att, k, v
        return att
