# spec: {"model": "decoder_nan_guard_raise.py:SafeDecoder", "inputs": [{"tensor": [2, 6, 8], "init": "randn"}]}
import torch
from torch import nn


class SafeDecoder(nn.Module):
    """A decoder block that refuses to go on when its logits collapse (all entropies under a
    floor): an error raised on a tensor condition, as sampling code guards its inputs."""

    def __init__(self, dim=8, vocab=11, min_entropy=1e-4):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.out = nn.Linear(dim, vocab)
        self.min_entropy = min_entropy

    def forward(self, x):
        h, _ = self.attn(x, x, x)
        logits = self.out(h + x)
        p = logits.softmax(-1)
        entropy = -(p * p.clamp_min(1e-9).log()).sum(-1)
        if (entropy < self.min_entropy).all():
            raise ValueError("decoder collapsed: every position has zero entropy")
        return logits
