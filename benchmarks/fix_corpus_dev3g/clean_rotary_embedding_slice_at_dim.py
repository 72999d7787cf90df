# spec: {"model": "clean_rotary_embedding_slice_at_dim.py:RotaryAttention", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 5, 16]}]}
import torch
from einops import rearrange
from torch import nn
from torch.amp import autocast


# vendored from rotary-embedding-torch 0.9.1 rotary_embedding_torch/rotary_embedding_torch.py
def exists(val):
    return val is not None


def slice_at_dim(t, dim_slice: slice, *, dim):
    dim += (t.ndim if dim < 0 else 0)
    colons = [slice(None)] * t.ndim
    colons[dim] = dim_slice
    return t[tuple(colons)]


# rotary embedding helper functions

def rotate_half(x):
    x = rearrange(x, '... (d r) -> ... d r', r = 2)
    x1, x2 = x.unbind(dim = -1)
    x = torch.stack((-x2, x1), dim = -1)
    return rearrange(x, '... d r -> ... (d r)')


@autocast('cuda', enabled = False)
def apply_rotary_emb(
    freqs,
    t,
    start_index = 0,
    scale = 1.,
    seq_dim = -2,
    freqs_seq_dim = None
):
    dtype = t.dtype

    if not exists(freqs_seq_dim):
        if freqs.ndim == 2 or t.ndim == 3:
            freqs_seq_dim = 0

    if t.ndim == 3 or exists(freqs_seq_dim):
        seq_len = t.shape[seq_dim]
        freqs = slice_at_dim(freqs, slice(-seq_len, None), dim = freqs_seq_dim)

    rot_dim = freqs.shape[-1]
    end_index = start_index + rot_dim

    assert rot_dim <= t.shape[-1], f'feature dimension {t.shape[-1]} is not of sufficient size to rotate in all the positions {rot_dim}'

    # Split t into three parts: left, middle (to be transformed), and right
    t_left = t[..., :start_index]
    t_middle = t[..., start_index:end_index]
    t_right = t[..., end_index:]

    # Apply rotary embeddings without modifying t in place
    t_transformed = (t_middle * freqs.cos() * scale) + (rotate_half(t_middle) * freqs.sin() * scale)

    out = torch.cat((t_left, t_transformed, t_right), dim=-1)

    return out.type(dtype)


class RotaryAttention(nn.Module):
    def __init__(self, dim, heads, rot_dim = 8, theta = 10000):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias = False)
        self.to_out = nn.Linear(dim, dim)
        freqs = 1. / (theta ** (torch.arange(0, rot_dim, 2)[:(rot_dim // 2)].float() / rot_dim))
        self.freqs = nn.Parameter(freqs, requires_grad = False)

    def forward(self, x):
        q, k, v = (rearrange(t, 'b n (h d) -> b h n d', h = self.heads) for t in self.to_qkv(x).chunk(3, dim = -1))
        seq = torch.arange(x.shape[1], device = x.device, dtype = self.freqs.dtype)
        freqs = torch.einsum('..., f -> ... f', seq, self.freqs)
        freqs = torch.repeat_interleave(freqs, 2, dim = -1)
        q = apply_rotary_emb(freqs, q)
        k = apply_rotary_emb(freqs, k)
        attn = (q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5).softmax(dim = -1)
        return self.to_out(rearrange(attn @ v, 'b h n d -> b n (h d)'))
