# spec: {"model": "c3_torch_mha_block.py:DecoderBlock", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 5, 16]}, {"tensor": [2, 7, 16]}], "mode": "train", "calls": 3}
import torch
from torch import nn


class DecoderBlock(nn.Module):
    """Self- and cross-attention with ``nn.MultiheadAttention`` and a causal mask built per call."""

    def __init__(self, dim, heads, dropout=0.0):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, tgt, memory, tgt_key_padding_mask=None):
        T = tgt.size(1)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=tgt.device), diagonal=1)
        h = self.norm1(tgt)
        tgt = tgt + self.self_attn(h, h, h, attn_mask=causal, key_padding_mask=tgt_key_padding_mask, need_weights=False)[0]
        h = self.norm2(tgt)
        tgt = tgt + self.cross_attn(h, memory, memory, need_weights=False)[0]
        return tgt + self.ff(tgt)
