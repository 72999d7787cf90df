# spec: {"model": "lens25_packed_to_padded.py:PackedToPadded", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [3], "dtype": "int64", "data": [5, 4, 3]}]}
import torch
from torch import nn


class PackedToPadded(nn.Module):
    """A k2/icefall-like helper: frames packed one utterance after another are laid out as a padded
    batch as long as the longest utterance (the offsets and lengths read one at a time), and the
    padded batch is returned for the attention decoder."""

    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, packed, lengths):
        x = self.norm(packed)
        batch = lengths.size(0)
        padded = x.new_zeros(batch, int(lengths.max()), x.size(1))
        start = 0
        for i in range(batch):
            n = int(lengths[i])
            padded[i, :n] = x[start : start + n]
            start += n
        return padded
