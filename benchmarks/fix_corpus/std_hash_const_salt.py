# spec: {"model": "std_hash_const_salt.py:SaltedDropout", "inputs": [{"tensor": [4, 12]}]}
import hashlib

import torch
from torch import nn

SALT = "layer-7"


class SaltedDropout(nn.Module):
    """Deterministic feature masking keyed on a hash of a module-level constant (sha256 -> int)."""

    def __init__(self, dim=12):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.dim = dim

    def forward(self, x):
        h = int(hashlib.sha256(SALT.encode()).hexdigest(), 16)
        keep = (torch.arange(self.dim) + h % 7) % 3 != 0
        return self.fc(x) * keep.to(x.dtype)
