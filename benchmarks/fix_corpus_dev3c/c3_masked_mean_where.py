# spec: {"model": "c3_masked_mean_where.py:MaskedMeanPool", "init": {"args": [16]}, "inputs": [{"tensor": [3, 8, 16]}, {"tensor": [3, 8], "dtype": "bool", "p": 0.7}], "calls": 3}
import torch
from torch import nn


class MaskedMeanPool(nn.Module):
    """Sentence-transformers mean pooling, with masked positions zeroed by ``torch.where``."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, token_embeddings, attention_mask):
        h = self.proj(token_embeddings)
        mask = attention_mask.unsqueeze(-1)
        h = torch.where(mask, h, torch.zeros_like(h))
        summed = (h * mask.float()).sum(dim=1)
        counts = mask.float().sum(dim=1).clamp(min=1e-9)
        pooled = summed / counts
        pooled = pooled.masked_fill(~attention_mask.any(dim=1, keepdim=True), 0.0)
        return nn.functional.normalize(pooled, p=2, dim=-1)
