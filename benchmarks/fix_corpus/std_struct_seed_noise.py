# spec: {"model": "std_struct_seed_noise.py:PosEncoding", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}]}
import hashlib
import struct

import torch
from torch import nn


class PosEncoding(nn.Module):
    """A layer whose frequency base is derived from a hash of its config string (struct-unpacked)."""

    def __init__(self, dim, tag="rope-v2"):
        super().__init__()
        self.dim = dim
        self.tag = tag
        self.proj = nn.Linear(dim, dim)

    def _base(self):
        digest = hashlib.md5(self.tag.encode()).digest()
        return 1000 + struct.unpack("<I", digest[:4])[0] % 9000

    def forward(self, x):
        base = self._base()
        pos = torch.arange(x.shape[1], dtype=x.dtype)
        freq = base ** (-torch.arange(0, self.dim, 2, dtype=x.dtype) / self.dim)
        ang = pos[:, None] * freq[None, :]
        enc = torch.cat([ang.sin(), ang.cos()], dim=-1)
        return self.proj(x + enc)
