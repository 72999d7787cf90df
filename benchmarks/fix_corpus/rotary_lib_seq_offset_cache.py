# spec: {"model": "rotary_lib_seq_offset_cache.py:RotaryCrossAttn", "init": {"args": [32, 4]}, "inputs": [{"tensor": [2, 6, 32]}], "kwargs": {"offset": 0}, "variants": [{"inputs": [{"tensor": [2, 6, 32]}], "kwargs": {"offset": 6}}, {"inputs": [{"tensor": [2, 6, 32]}], "kwargs": {"offset": 12}}]}
import torch
from torch import nn
from rotary_embedding_torch import RotaryEmbedding


class RotaryCrossAttn(nn.Module):
    """Chunked attention over a long stream with rotary-embedding-torch; each chunk passes its start offset."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.rotary = RotaryEmbedding(dim=dim // heads // 2)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x, offset=0):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        q = self.rotary.rotate_queries_or_keys(q, offset=offset)
        k = self.rotary.rotate_queries_or_keys(k, offset=offset)
        out = nn.functional.scaled_dot_product_attention(q, k, v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))
