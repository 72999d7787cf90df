# spec: {"model": "attn_mask_none_then_tensor.py:PaddedSelfAttention", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 6, 16]}, null], "variants": [{"inputs": [{"tensor": [2, 6, 16]}, {"tensor": [2, 6], "dtype": "bool", "p": 0.8}]}, {"inputs": [{"tensor": [2, 6, 16]}, null]}]}
import torch
import torch.nn as nn


class PaddedSelfAttention(nn.Module):
    """Encoder self-attention where padded batches pass a key padding mask and unpadded ones pass None."""

    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, key_valid=None):
        pad_mask = None if key_valid is None else ~key_valid
        if pad_mask is not None:
            pad_mask[:, 0] = False
        out, _ = self.attn(x, x, x, key_padding_mask=pad_mask, need_weights=False)
        return self.norm(x + out)
