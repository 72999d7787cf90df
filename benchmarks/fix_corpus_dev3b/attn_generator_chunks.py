# spec: {"model": "attn_generator_chunks.py:ChunkedAttention", "init": {"args": [8]}, "inputs": [{"tensor": [2, 12, 8]}]}
import torch
from torch import nn


def query_chunks(q, size):
    for start in range(0, q.shape[1], size):
        yield start, q[:, start : start + size]


class ChunkedAttention(nn.Module):
    """Memory-efficient attention over query chunks produced by a generator (xformers-free
    fallback in research repositories)."""

    def __init__(self, dim, chunk=5):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.chunk = chunk
        self.scale = dim**-0.5

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        outs = []
        for _, qc in query_chunks(q, self.chunk):
            outs.append((qc @ k.transpose(1, 2) * self.scale).softmax(-1) @ v)
        return torch.cat(outs, dim=1)
