# spec: {"model": "rc_batch_arange_pos.py:TokenEmbed", "init": {"args": [50, 16, 32]}, "inputs": [{"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 50}], "variants": [{"inputs": [{"tensor": [3, 9], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}, {"inputs": [{"tensor": [5, 11], "dtype": "int64", "init": "randint", "low": 0, "high": 50}]}]}
import torch
from torch import nn


class TokenEmbed(nn.Module):
    """GPT-2-style token + learned position embedding, positions from `torch.arange` of the
    input's length; batches of different sizes and lengths."""

    def __init__(self, vocab, dim, max_len):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(max_len, dim)
        self.ln = nn.LayerNorm(dim)

    def forward(self, input_ids):
        b, t = input_ids.size()
        pos = torch.arange(0, t, dtype=torch.long, device=input_ids.device)
        return self.ln(self.wte(input_ids) + self.wpe(pos)[None])
