# spec: {"model": "debug_grad_scale_assert.py:ContrastiveProjector", "init": {"args": [16, 8]}, "inputs": [{"tensor": [6, 16]}, {"tensor": [6, 16]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class ContrastiveProjector(nn.Module):
    """CLIP-style two-view projector with a learnable logit scale, asserting the scale stays sane."""

    def __init__(self, dim, proj_dim):
        super().__init__()
        self.proj = nn.Linear(dim, proj_dim)
        self.logit_scale = nn.Parameter(torch.tensor(2.6592))

    def forward(self, a, b):
        za = F.normalize(self.proj(a), dim=-1)
        zb = F.normalize(self.proj(b), dim=-1)
        scale = self.logit_scale.exp()
        assert scale < 100, f"logit scale exploded: {scale}"
        logits = scale * za @ zb.t()
        labels = torch.arange(a.size(0))
        return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
