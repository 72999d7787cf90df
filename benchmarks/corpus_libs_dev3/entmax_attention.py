"""entmax: sparse attention weights with entmax-1.5 over the keys (the adaptively sparse transformer)."""

import torch
from entmax import entmax15


class SparseAttention(torch.nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.to_qkv = torch.nn.Linear(dim, dim * 3, bias=False)
        self.scale = dim**-0.5

    def forward(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        sim = torch.einsum("bid,bjd->bij", q, k) * self.scale
        attn = entmax15(sim, dim=-1)
        return attn @ v


def make():
    torch.manual_seed(0)
    return SparseAttention(), (torch.randn(2, 6, 16),)
