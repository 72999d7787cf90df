# spec: {"model": "c4_local_attention_lib.py:LocalBlock", "init": {"args": [16]}, "inputs": [{"tensor": [2, 16, 16]}], "calls": 3}
from einops import rearrange
from local_attention import LocalAttention
from torch import nn


class LocalBlock(nn.Module):
    """lucidrains' ``local_attention`` used as a library: heads split with einops, windowed
    causal attention with look-backward 1, autopad off (the length a multiple of the window)."""

    def __init__(self, dim, heads=2, window_size=4):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.attn = LocalAttention(dim=dim // heads, window_size=window_size, causal=True, look_backward=1, look_forward=0, dropout=0.0, exact_windowsize=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in (q, k, v))
        out = self.attn(q, k, v)
        return x + self.to_out(rearrange(out, "b h n d -> b n (h d)"))
