# spec: {"model": "rc_t5_relbias_cache.py:T5RelativeBias", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 6, 6]}], "variants": [{"inputs": [{"tensor": [2, 4, 9, 9]}]}, {"inputs": [{"tensor": [2, 4, 6, 6]}]}, {"inputs": [{"tensor": [2, 4, 5, 11]}]}]}
import math

import torch
from torch import nn


class T5RelativeBias(nn.Module):
    """T5-style bucketed relative position bias added to attention scores, cached per
    (query length, key length) pair the way several seq2seq re-implementations do."""

    def __init__(self, heads, num_buckets=16, max_distance=32):
        super().__init__()
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        self.rel_emb = nn.Embedding(num_buckets, heads)
        self._cache = dict()

    def _bucket(self, rel):
        n = -rel
        half = self.num_buckets // 2
        ret = (n < 0).long() * half
        n = n.abs()
        max_exact = half // 2
        is_small = n < max_exact
        val_large = max_exact + (
            torch.log(n.float() / max_exact + 1e-6) / math.log(self.max_distance / max_exact) * (half - max_exact)
        ).long()
        val_large = torch.clamp(val_large, max=half - 1)
        return ret + torch.where(is_small, n, val_large)

    def compute_bias(self, qlen, klen):
        ctx = torch.arange(qlen)[:, None]
        mem = torch.arange(klen)[None, :]
        buckets = self._bucket(mem - ctx)
        return self.rel_emb(buckets).permute(2, 0, 1).unsqueeze(0)

    def forward(self, scores):
        key = (scores.shape[-2], scores.shape[-1])
        bias = self._cache.get(key)
        if bias is None:
            bias = self.compute_bias(*key)
            self._cache[key] = bias
        return (scores + bias).softmax(-1)
