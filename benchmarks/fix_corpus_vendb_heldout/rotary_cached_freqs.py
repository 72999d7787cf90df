# spec: {"model": "rotary_cached_freqs.py:RotaryAttention", "init": {"args": [16]}, "inputs": [{"tensor": [2, 6, 16]}], "calls": 2, "variants": [{"inputs": [{"tensor": [2, 9, 16]}]}, {"inputs": [{"tensor": [2, 12, 16]}]}]}
from math import pi

import torch
from einops import rearrange, repeat
from torch import einsum, nn

# vendored from rotary-embedding-torch 0.9.1 rotary_embedding_torch/rotary_embedding_torch.py
# (RotaryEmbedding for language with its frequency cache, rotate_half, apply_rotary_emb)


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def rotate_half(x):
    x = rearrange(x, "... (d r) -> ... d r", r=2)
    x1, x2 = x.unbind(dim=-1)
    x = torch.stack((-x2, x1), dim=-1)
    return rearrange(x, "... d r -> ... (d r)")


def apply_rotary_emb(freqs, t, start_index=0, scale=1.0, seq_dim=-2):
    dtype = t.dtype
    if t.ndim == 3 or exists(freqs) and freqs.ndim == 2:
        seq_len = t.shape[seq_dim]
        freqs = freqs[-seq_len:]
    rot_dim = freqs.shape[-1]
    end_index = start_index + rot_dim
    t_left = t[..., :start_index]
    t_middle = t[..., start_index:end_index]
    t_right = t[..., end_index:]
    t_transformed = (t_middle * freqs.cos() * scale) + (rotate_half(t_middle) * freqs.sin() * scale)
    out = torch.cat((t_left, t_transformed, t_right), dim=-1)
    return out.type(dtype)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, theta=10000, cache_if_possible=True, cache_max_seq_len=8192):
        super().__init__()
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        self.cache_if_possible = cache_if_possible
        self.cache_max_seq_len = cache_max_seq_len
        self.register_buffer("cached_freqs", torch.zeros(cache_max_seq_len, dim), persistent=False)
        self.cached_freqs_seq_len = 0
        self.freqs = nn.Parameter(freqs, requires_grad=False)
        self.learned_freq = False
        self.default_seq_dim = -2

    @property
    def device(self):
        return self.freqs.device

    def get_seq_pos(self, seq_len, device, dtype, offset=0):
        return torch.arange(seq_len, device=device, dtype=dtype) + offset

    def rotate_queries_or_keys(self, t, seq_dim=None, offset=0):
        seq_dim = default(seq_dim, self.default_seq_dim)
        device, dtype, seq_len = t.device, t.dtype, t.shape[seq_dim]
        seq = self.get_seq_pos(seq_len, device=device, dtype=dtype, offset=offset)
        freqs = self.forward(seq, seq_len=seq_len, offset=offset)
        if seq_dim == -3:
            freqs = rearrange(freqs, "n d -> n 1 d")
        return apply_rotary_emb(freqs, t, seq_dim=seq_dim)

    def forward(self, t, seq_len=None, offset=0):
        should_cache = self.cache_if_possible and not self.learned_freq and exists(seq_len) and (offset + seq_len) <= self.cache_max_seq_len

        if should_cache and exists(self.cached_freqs) and (offset + seq_len) <= self.cached_freqs_seq_len:
            return self.cached_freqs[offset : (offset + seq_len)].detach()

        freqs = self.freqs

        freqs = einsum("..., f -> ... f", t.type(freqs.dtype), freqs)
        freqs = repeat(freqs, "... n -> ... (n r)", r=2)

        if should_cache and offset == 0:
            self.cached_freqs[:seq_len] = freqs.detach()
            self.cached_freqs_seq_len = seq_len

        return freqs


class RotaryAttention(nn.Module):
    def __init__(self, dim, heads=2):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.rotary_emb = RotaryEmbedding(dim // heads)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in (q, k, v))
        q = self.rotary_emb.rotate_queries_or_keys(q)
        k = self.rotary_emb.rotate_queries_or_keys(k)
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.to_out(rearrange(out, "b h n d -> b n (h d)"))
