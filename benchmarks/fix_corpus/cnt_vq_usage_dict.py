# spec: {"model": "cnt_vq_usage_dict.py:VectorQuantizer", "init": {"args": [8, 6]}, "inputs": [{"tensor": [2, 5, 6]}], "calls": 3}
import torch
from torch import nn


class VectorQuantizer(nn.Module):
    """A VQ-VAE quantizer (taming / vector-quantize-pytorch style) that counts how often each
    code is picked, for dead-code statistics read by the trainer."""

    def __init__(self, n_codes, dim):
        super().__init__()
        self.codebook = nn.Embedding(n_codes, dim)
        self.n_codes = n_codes
        self.usage = {}

    def forward(self, z):
        d = torch.cdist(z, self.codebook.weight.unsqueeze(0).expand(z.shape[0], -1, -1))
        idx = d.argmin(-1)
        for c in idx.flatten().tolist():
            self.usage[c] = self.usage.get(c, 0) + 1
        zq = self.codebook(idx)
        return z + (zq - z).detach()
