# spec: {"model": "s4_decode_seq_len_one.py:CausalBlock", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}], "variants": [{"inputs": [{"tensor": [1, 6, 16]}]}, {"inputs": [{"tensor": [1, 7, 16]}]}, {"inputs": [{"tensor": [1, 9, 16]}]}]}
import torch
from torch import nn


class CausalBlock(nn.Module):
    """A block run on a one-token decode step, then on prompts of several lengths."""

    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        seq_len = x.shape[1]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        mask = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
        att = (q @ k.transpose(1, 2)).masked_fill(~mask, float("-inf"))
        return self.proj(att.softmax(-1) @ v)
