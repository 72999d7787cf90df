"""memory-efficient-attention-pytorch: chunked (memory efficient) causal self-attention."""

import torch
from memory_efficient_attention_pytorch import Attention


class ChunkedSelfAttention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = Attention(
            dim=32, dim_head=8, heads=4, causal=True, memory_efficient=True,
            q_bucket_size=8, k_bucket_size=8,
        )

    def forward(self, x):
        return self.attn(x)


def make():
    torch.manual_seed(0)
    return ChunkedSelfAttention(), (torch.randn(2, 24, 32),)
