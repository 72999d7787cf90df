# spec: {"model": "xt_rotary_from_seq_len.py:RotaryBlock", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16]}], "variants": [{"inputs": [{"tensor": [2, 7, 16]}]}, {"inputs": [{"tensor": [2, 11, 16]}]}]}
import math

import torch
from einops import rearrange
from torch import arange, cat, nn, stack
from torch.nn import Module
from torch.amp import autocast
from x_transformers.x_transformers import apply_rotary_pos_emb, default, disable_autocast, exists

# vendored from x-transformers 2.31.10 x_transformers/x_transformers.py
class RotaryEmbedding(Module):
    def __init__(
        self,
        dim,
        use_xpos = False,
        scale_base = 512,
        interpolation_factor = 1.,
        base = 10000,
        base_rescale_factor = 1.
    ):
        super().__init__()
        # proposed by reddit user bloc97, to rescale rotary embeddings to longer sequence length without fine-tuning
        # has some connection to NTK literature
        # https://www.reddit.com/r/LocalLLaMA/comments/14lz7j5/ntkaware_scaled_rope_allows_llama_models_to_have/
        base *= base_rescale_factor ** (dim / (dim - 2))

        inv_freq = 1. / (base ** (arange(0, dim, 2).float() / dim))
        self.register_buffer('inv_freq', inv_freq)

        assert interpolation_factor >= 1.
        self.interpolation_factor = interpolation_factor

        if not use_xpos:
            self.register_buffer('scale', None)
            return

        scale = (arange(0, dim, 2) + 0.4 * dim) / (1.4 * dim)

        self.scale_base = scale_base
        self.register_buffer('scale', scale)

    def forward_from_seq_len(self, seq_len):
        device = self.inv_freq.device

        t = arange(seq_len, device = device)
        return self.forward(t)

    @disable_autocast
    def forward(self, t, offset = 0):
        max_pos = t.max() + 1

        if t.ndim == 1:
            t = rearrange(t, 'n -> 1 n')

        freqs = torch.einsum('b i , j -> b i j', t.type_as(self.inv_freq), self.inv_freq) / self.interpolation_factor
        freqs = stack((freqs, freqs), dim = -1)
        freqs = rearrange(freqs, '... d r -> ... (d r)')

        if not exists(self.scale):
            return freqs, 1.

        power = (t - (max_pos // 2)) / self.scale_base
        scale = self.scale ** rearrange(power, '... n -> ... n 1')
        scale = stack((scale, scale), dim = -1)
        scale = rearrange(scale, '... d r -> ... (d r)')

        return freqs, scale


class RotaryBlock(nn.Module):
    def __init__(self, dim, heads=2):
        super().__init__()
        self.heads = heads
        self.to_qk = nn.Linear(dim, dim * 2, bias=False)
        self.rotary_pos_emb = RotaryEmbedding(dim // heads)

    def forward(self, x):
        q, k = self.to_qk(x).chunk(2, dim=-1)
        q, k = (rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in (q, k))
        freqs, xpos_scale = self.rotary_pos_emb.forward_from_seq_len(x.shape[1])
        q = apply_rotary_pos_emb(q, freqs)
        k = apply_rotary_pos_emb(k, freqs)
        return (q @ k.transpose(-1, -2)).softmax(dim=-1)
