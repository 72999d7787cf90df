# spec: {"model": "rc_causal_mask_cache.py:CausalSelfAttention", "init": {"args": [24, 3]}, "inputs": [{"tensor": [2, 5, 24]}], "variants": [{"inputs": [{"tensor": [2, 7, 24]}]}, {"inputs": [{"tensor": [2, 5, 24]}]}, {"inputs": [{"tensor": [2, 9, 24]}]}]}
import torch
import torch.nn.functional as F
from torch import nn


def causal_mask(n, device=None):
    return torch.triu(torch.full((n, n), float("-inf"), device=device), diagonal=1)


class CausalSelfAttention(nn.Module):
    """fairseq-like decoder self-attention: the future mask is memoised per length with
    `dict.get` and filled on a miss."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.in_proj = nn.Linear(dim, 3 * dim)
        self.out_proj = nn.Linear(dim, dim)
        self._future_masks = {}

    def forward(self, x):
        bsz, tgt_len, dim = x.size()
        mask = self._future_masks.get(tgt_len)
        if mask is None:
            mask = causal_mask(tgt_len, x.device)
            self._future_masks[tgt_len] = mask
        q, k, v = self.in_proj(x).chunk(3, dim=-1)
        q, k, v = (t.view(bsz, tgt_len, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out_proj(y.transpose(1, 2).reshape(bsz, tgt_len, dim))
