# spec: {"model": "posenc_dict_cache_by_len.py:SinusoidalEncoderInput", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16]}], "variants": [{"inputs": [{"tensor": [2, 9, 16]}]}, {"inputs": [{"tensor": [2, 13, 16]}]}]}
import math

import torch
import torch.nn as nn


class SinusoidalEncoderInput(nn.Module):
    """Sinusoidal positions memoised per sequence length in a dict on the module (fairseq habit)."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self._pe = {}
        self.proj = nn.Linear(dim, dim)

    def positions(self, length):
        if length not in self._pe:
            pos = torch.arange(length, dtype=torch.float32)[:, None]
            div = torch.exp(torch.arange(0, self.dim, 2, dtype=torch.float32) * (-math.log(10000.0) / self.dim))
            pe = torch.zeros(length, self.dim)
            pe[:, 0::2] = torch.sin(pos * div)
            pe[:, 1::2] = torch.cos(pos * div)
            self._pe[length] = pe
        return self._pe[length]

    def forward(self, x):
        return self.proj(x * math.sqrt(self.dim) + self.positions(x.size(1)))
