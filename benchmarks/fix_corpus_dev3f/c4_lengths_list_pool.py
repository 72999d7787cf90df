# spec: {"model": "c4_lengths_list_pool.py:SegmentPooler", "init": {"args": [16]}, "inputs": [{"tensor": [3, 8, 16]}, [6, 4, 2]], "calls": 3}
import torch
from torch import nn


class SegmentPooler(nn.Module):
    """Per-utterance mean pooling with the valid lengths passed as a Python list (a collate
    function's ``lengths``, the same batch each call): a comprehension over
    ``zip(hidden, lengths)`` slicing ``h[:n]``, and the mask made from ``torch.tensor(lengths)``."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden, lengths):
        hidden = self.proj(hidden)
        pooled = torch.stack([h[:n].mean(dim=0) for h, n in zip(hidden, lengths)])
        first = [hidden[i, :n].max(dim=0).values for i, n in enumerate(lengths)]
        lens = torch.tensor(lengths, device=hidden.device)
        mask = torch.arange(hidden.shape[1], device=hidden.device)[None, :] < lens[:, None]
        masked = (hidden * mask[..., None]).sum(1) / lens[:, None]
        return pooled + masked + torch.stack(first)
