# spec: {"model": "seq_last_valid_rows_comp.py:LastValidPool", "inputs": [{"tensor": [3, 7, 4]}, {"tensor": [3, 7], "init": "rand"}]}
import torch
from torch import nn


class LastValidPool(nn.Module):
    """Pool the last valid frame of each sequence; the last position is taken per row with a
    comprehension over `nonzero()` (speech/sequence-tagging scripts)."""

    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames, probs):
        h = self.proj(frames)
        valid = probs > 0.05
        last = torch.cat([row.nonzero()[-1] for row in valid])
        return h[torch.arange(h.shape[0]), last]
