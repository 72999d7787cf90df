"""product-key-memory: a product key memory layer in place of a transformer feed-forward."""

import torch
from product_key_memory import PKM


class MemoryBlock(torch.nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.pkm = PKM(dim, heads=2, num_keys=16, topk=4, dim_head=16)

    def forward(self, x):
        return x + self.pkm(self.norm(x))


def make():
    torch.manual_seed(0)
    return MemoryBlock(), (torch.randn(2, 5, 32),)
