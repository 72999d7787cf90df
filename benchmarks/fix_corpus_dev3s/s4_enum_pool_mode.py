# spec: {"model": "s4_enum_pool_mode.py:SentenceEmbedder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}, "mean"], "variants": [{"inputs": [{"tensor": [2, 5, 8]}, "cls"]}]}
import enum

import torch
from torch import nn


class PoolingMode(str, enum.Enum):
    MEAN = "mean"
    CLS = "cls"
    MAX = "max"


class SentenceEmbedder(nn.Module):
    """sentence-transformers style pooling chosen per call by a `PoolingMode` name."""

    def __init__(self, dim):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)

    def forward(self, token_embeddings, pooling):
        pooling = PoolingMode(pooling)
        h = torch.tanh(self.encoder(token_embeddings))
        if pooling is PoolingMode.CLS:
            return h[:, 0]
        if pooling is PoolingMode.MAX:
            return h.max(dim=1).values
        return h.mean(dim=1)
