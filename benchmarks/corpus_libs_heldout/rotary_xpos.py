"""rotary-embedding-torch: xpos rotary embeddings on queries and keys; sequence length varies."""

import torch
from rotary_embedding_torch import RotaryEmbedding


class Attention(torch.nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, dim * 3)
        self.rotary = RotaryEmbedding(dim=dim // heads, use_xpos=True)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        q, k = self.rotary.rotate_queries_and_keys(q, k)
        attn = (q @ k.transpose(-1, -2)).softmax(-1)
        return (attn @ v).transpose(1, 2).reshape(b, n, d)


SPEC = {"variants": [{"inputs": [{"tensor": [2, 9, 16]}]}]}


def make():
    return Attention(), (torch.randn(2, 6, 16),)
