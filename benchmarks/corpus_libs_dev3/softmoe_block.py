"""soft-moe-pytorch: a soft mixture-of-experts feed-forward inside a vision transformer block."""

import torch
from soft_moe_pytorch import SoftMoE


class Block(torch.nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.moe = SoftMoE(dim=dim, seq_len=16, num_experts=4)

    def forward(self, x):
        return x + self.moe(self.norm(x))


def make():
    torch.manual_seed(0)
    return Block(), (torch.randn(2, 16, 32),)
