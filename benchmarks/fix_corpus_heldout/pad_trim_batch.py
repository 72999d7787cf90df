# spec: {"model": "pad_trim_batch.py:LengthAwareEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [3, 12, 8]}, {"tensor": [3], "dtype": "int64", "data": [5, 9, 7]}]}
import torch
from torch import nn


class LengthAwareEncoder(nn.Module):
    """Trims a padded batch to its longest sequence before encoding (speech/NLP collate habit)."""

    def __init__(self, dim):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.out = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        max_len = int(lengths.max())
        x = x[:, :max_len]
        mask = torch.arange(max_len)[None, :] < lengths[:, None]
        h = self.enc(x)
        pooled = (h * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(-1)
        return self.out(pooled)
