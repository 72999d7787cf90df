# spec: {"model": "seq_lengths_tolist_log.py:PaddedEncoder", "inputs": [{"tensor": [3, 10, 8], "init": "randn"}, {"tensor": [3, 10], "dtype": "bool", "init": "rand"}]}
import logging

import torch
from torch import nn

log = logging.getLogger("train")


class PaddedEncoder(nn.Module):
    """A padded-batch encoder (fairseq habit) that logs the per-sample lengths it saw as a
    Python list read with `.tolist()`; nothing but the log line reads the list."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, mask):
        lengths = mask.sum(-1).tolist()
        widest = max(lengths)
        log.debug("batch lengths %s (widest %d)", lengths, widest)
        h = self.norm(self.proj(x))
        return (h * mask.unsqueeze(-1)).sum(1) / mask.sum(-1, keepdim=True).clamp_min(1)
