# spec: {"model": "vq_dead_code_reset.py:VectorQuantizer", "init": {"args": [16, 8]}, "inputs": [{"tensor": [4, 6, 8]}], "mode": "train", "calls": 3}
import torch
from torch import nn


class VectorQuantizer(nn.Module):
    """A VQ-VAE quantizer that re-seeds dead codes from the batch (vector-quantize-pytorch habit)."""

    def __init__(self, codebook_size, dim, decay=0.9, threshold=0.05):
        super().__init__()
        self.codebook = nn.Parameter(torch.randn(codebook_size, dim))
        self.register_buffer("usage", torch.ones(codebook_size))
        self.decay = decay
        self.threshold = threshold

    def forward(self, z):
        flat = z.reshape(-1, z.shape[-1])
        idx = torch.cdist(flat, self.codebook).argmin(-1)
        if self.training:
            hits = torch.bincount(idx, minlength=self.codebook.shape[0]).float()
            self.usage.mul_(self.decay).add_((1 - self.decay) * hits)
            dead = self.usage < self.threshold
            if dead.any():
                picks = torch.randint(0, flat.shape[0], (int(dead.sum()),))
                self.codebook.data[dead] = flat[picks].detach()
        q = self.codebook[idx].view_as(z)
        commit = (q.detach() - z).pow(2).mean()
        return z + (q - z).detach(), commit
