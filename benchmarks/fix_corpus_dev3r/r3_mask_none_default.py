# spec: {"model": "r3_mask_none_default.py:MaskedPool", "init": {"args": [8]}, "inputs": [{"tensor": [2, 6, 8]}], "variants": [{"inputs": [{"tensor": [2, 6, 8]}, {"tensor": [2, 6], "dtype": "bool", "p": 0.8}]}]}
import torch
from torch import nn


class MaskedPool(nn.Module):
    """Mean pooling whose padding mask defaults to None and is filled per call."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
        h = self.proj(x) * attention_mask.unsqueeze(-1)
        return h.sum(1) / attention_mask.sum(1, keepdim=True).clamp(min=1)
