# spec: {"model": "metric_resize_pred_buffer.py:RetrievalEvalHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 2}
import torch
from torch import nn


class RetrievalEvalHead(nn.Module):
    """Embedding head that appends each batch's embeddings to a growing gallery buffer, grown in
    place with `resize_` (a memory-bank habit from metric-learning code)."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("gallery", torch.empty(0, dim))

    def forward(self, x):
        emb = nn.functional.normalize(self.proj(x), dim=-1)
        n = self.gallery.shape[0]
        self.gallery.resize_(n + emb.shape[0], emb.shape[1])
        self.gallery[n:] = emb.detach()
        return emb @ self.gallery.t()
