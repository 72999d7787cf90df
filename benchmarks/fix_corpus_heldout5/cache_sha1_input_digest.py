# spec: {"model": "cache_sha1_input_digest.py:EmbeddingServer", "init": {"args": [16, 8]}, "inputs": [{"tensor": [3, 16]}]}
import hashlib

import torch
from torch import nn


class EmbeddingServer(nn.Module):
    """Embedding endpoint that memoises results under a digest of the request tensor."""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, out_dim))
        self._memo = {}

    def _digest(self, x):
        return hashlib.sha1(x.detach().cpu().numpy().tobytes()).hexdigest()

    def forward(self, x):
        key = self._digest(x)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        out = nn.functional.normalize(self.net(x), dim=-1)
        self._memo[key] = out
        return out
