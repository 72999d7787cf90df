# spec: {"model": "c3_causal_mask_helper.py:GPTBlock", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 7, 16]}], "calls": 3}
import math

import torch
from torch import nn


def _make_causal_mask(n: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    mask = torch.full((n, n), torch.finfo(dtype).min, device=device, dtype=dtype)
    return torch.triu(mask, diagonal=1)


class GPTBlock(nn.Module):
    """nanoGPT-like block; the causal mask from a module-level helper on ``x``'s size and dtype."""

    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(approximate="tanh"), nn.Linear(4 * n_embd, n_embd))

    def attn(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att + _make_causal_mask(T, x.device, x.dtype)
        y = att.softmax(dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))
