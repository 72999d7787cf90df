# spec: {"model": "local_attention_autopad_lengths.py:LocalSelfAttention", "init": {"args": [16]}, "inputs": [{"tensor": [1, 8, 16]}], "variants": [{"inputs": [{"tensor": [1, 10, 16]}]}, {"inputs": [{"tensor": [1, 13, 16]}]}]}
import math

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

# vendored from local-attention 1.11.2 local_attention/local_attention.py
def pad_to_multiple(tensor, multiple, dim=-1, value=0):
    seqlen = tensor.shape[dim]
    m = seqlen / multiple
    if m.is_integer():
        return False, tensor
    remainder = math.ceil(m) * multiple - seqlen
    pad_offset = (0,) * (-1 - dim) * 2
    return True, F.pad(tensor, (*pad_offset, 0, remainder), value = value)

# vendored from local-attention 1.11.2 local_attention/local_attention.py
def look_around(x, backward = 1, forward = 0, pad_value = -1, dim = 2):
    dims = (len(x.shape) - dim) * (0, 0)
    padded_x = F.pad(x, (*dims, backward, forward), value = pad_value)
    tensors = padded_x.unfold(1, forward + backward + 1,1)
    return tensors.movedim(-1,dim).flatten(dim, dim + 1)


class LocalSelfAttention(nn.Module):
    def __init__(self, dim, window_size=4, heads=2):
        super().__init__()
        self.window_size = window_size
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = (rearrange(t, "b n (h d) -> (b h) n d", h=self.heads) for t in self.to_qkv(x).chunk(3, dim=-1))
        needed_pad, q = pad_to_multiple(q, self.window_size, dim=-2)
        _, k = pad_to_multiple(k, self.window_size, dim=-2)
        _, v = pad_to_multiple(v, self.window_size, dim=-2)
        windows = q.shape[1] // self.window_size
        bq = q.reshape(q.shape[0], windows, self.window_size, -1)
        bk = look_around(k.reshape(k.shape[0], windows, self.window_size, -1), backward=1, forward=0, pad_value=0.0)
        bv = look_around(v.reshape(v.shape[0], windows, self.window_size, -1), backward=1, forward=0, pad_value=0.0)
        attn = (bq @ bk.transpose(-1, -2) * bq.shape[-1] ** -0.5).softmax(dim=-1)
        out = (attn @ bv).reshape(q.shape[0], -1, q.shape[-1])
        if needed_pad:
            out = out[:, :n]
        return rearrange(out, "(b h) n d -> b n (h d)", h=self.heads)
