# spec: {"model": "clean_xtransformers_rotary_glu_block.py:RotaryGLUBlock", "init": {"args": [16, 2]}, "inputs": [{"tensor": [2, 6, 16]}]}
from functools import wraps

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import cat, is_tensor, nn, stack
from torch.amp import autocast
from torch.nn import Module


# vendored from x-transformers 2.31.10 x_transformers/x_transformers.py
def exists(val):
    return val is not None


def disable_autocast(fn):
    @wraps(fn)
    def inner(*args, **kwargs):
        tensor_arg = next(arg for arg in (*args, *kwargs.values()) if is_tensor(arg))

        with autocast(tensor_arg.device.type, enabled = False):
            return fn(*args, **kwargs)

    return inner


def rotate_half(x):
    x = rearrange(x, '... (d r) -> ... d r', r = 2)
    x1, x2 = x.unbind(dim = -1)
    x = stack((-x2, x1), dim = -1)
    return rearrange(x, '... d r -> ... (d r)')


@disable_autocast
def apply_rotary_pos_emb(t, freqs, scale = 1):
    rot_dim, seq_len, orig_dtype = freqs.shape[-1], t.shape[-2], t.dtype

    freqs = freqs[:, -seq_len:, :]
    scale = scale[:, -seq_len:, :] if is_tensor(scale) else scale

    if t.ndim == 4 and freqs.ndim == 3:
        freqs = rearrange(freqs, 'b n d -> b 1 n d')

        if is_tensor(scale):
            scale = rearrange(scale, 'b n d -> b 1 n d')

    # partial rotary embeddings, Wang et al. GPT-J
    t, t_unrotated = t[..., :rot_dim], t[..., rot_dim:]
    t = (t * freqs.cos() * scale) + (rotate_half(t) * freqs.sin() * scale)
    out = cat((t, t_unrotated), dim = -1)

    return out.type(orig_dtype)


class RMSNorm(Module):
    def __init__(self, dim, unit_offset = False):
        super().__init__()
        self.unit_offset = unit_offset
        self.scale = dim ** 0.5

        self.g = nn.Parameter(torch.zeros(dim))
        nn.init.constant_(self.g, 1. - float(unit_offset))

    def forward(self, x):
        gamma = self.g + float(self.unit_offset)
        return F.normalize(x, dim = -1) * self.scale * gamma


class GLU(Module):
    def __init__(self, dim_in, dim_out, activation, mult_bias = False):
        super().__init__()
        self.act = activation
        self.up_softclamp_value = None
        self.proj = nn.Linear(dim_in, dim_out * 2)
        self.mult_bias = nn.Parameter(torch.ones(dim_out)) if mult_bias else 1.

    def forward(self, x):
        up, gate = self.proj(x).chunk(2, dim = -1)
        return up * self.act(gate) * self.mult_bias


class RotaryGLUBlock(Module):
    def __init__(self, dim, heads, rotary_dim = 4):
        super().__init__()
        self.heads = heads
        self.norm1 = RMSNorm(dim)
        self.norm2 = RMSNorm(dim)
        self.to_qkv = nn.Linear(dim, dim * 3, bias = False)
        self.to_out = nn.Linear(dim, dim, bias = False)
        self.ff = nn.Sequential(GLU(dim, dim * 2, nn.SiLU()), nn.Linear(dim * 2, dim))
        inv_freq = 1. / (10000 ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
        self.register_buffer('inv_freq', inv_freq)

    def forward(self, x):
        n = x.shape[1]
        t = torch.arange(n, device = x.device).type_as(self.inv_freq)
        freqs = torch.einsum('i , j -> i j', t, self.inv_freq)
        freqs = torch.stack((freqs, freqs), dim = -1)
        freqs = rearrange(freqs, '... d r -> ... (d r)')[None]
        q, k, v = self.to_qkv(self.norm1(x)).chunk(3, dim = -1)
        q, k, v = (rearrange(t_, 'b n (h d) -> b h n d', h = self.heads) for t_ in (q, k, v))
        q, k = apply_rotary_pos_emb(q, freqs), apply_rotary_pos_emb(k, freqs)
        out = F.scaled_dot_product_attention(q, k, v, is_causal = True)
        x = x + self.to_out(rearrange(out, 'b h n d -> b n (h d)'))
        return x + self.ff(self.norm2(x))
