# spec: {"model": "rope_dynamic_ntk_max_pos.py:DynamicNTKRotaryAttention", "init": {"args": [32, 4]}, "inputs": [{"tensor": [2, 10, 32]}, {"tensor": [2, 10], "dtype": "int64", "init": "arange"}]}
import torch
from torch import nn


class DynamicNTKRotaryAttention(nn.Module):
    """Llama attention with dynamic-NTK rotary scaling keyed on the largest position id."""

    def __init__(self, hidden, heads, max_position_embeddings=8, base=10000.0):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)
        self.max_position_embeddings = max_position_embeddings
        self.base = base

    def rotary(self, position_ids):
        seq_len = int(position_ids.max()) + 1
        base = self.base
        if seq_len > self.max_position_embeddings:
            scale = seq_len / self.max_position_embeddings
            base = base * scale ** (self.head_dim / (self.head_dim - 2))
        inv_freq = 1.0 / base ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim)
        freqs = position_ids[..., None].float() * inv_freq
        emb = torch.cat([freqs, freqs], dim=-1)
        return emb.cos()[:, None], emb.sin()[:, None]

    def forward(self, hidden_states, position_ids):
        b, t, _ = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(b, t, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        cos, sin = self.rotary(position_ids)

        def rot(x):
            x1, x2 = x.chunk(2, dim=-1)
            return x * cos + torch.cat([-x2, x1], dim=-1) * sin

        out = nn.functional.scaled_dot_product_attention(rot(q), rot(k), v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))
