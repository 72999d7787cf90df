# spec: {"model": "lp_knn_min_key_dists.py:PrototypeClassifier", "init": {"args": [8, 5]}, "inputs": [{"tensor": [8]}]}
import torch
from torch import nn


class PrototypeClassifier(nn.Module):
    """Nearest-prototype lookup (few-shot / VQ-style): distances in a Python list, the closest
    one picked with min(range(...), key=dists.__getitem__) and used twice."""

    def __init__(self, dim, n_protos):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.protos = nn.Parameter(torch.randn(n_protos, dim))

    def forward(self, x):
        q = self.enc(x)
        dists = [torch.dist(q, p) for p in self.protos]
        j = min(range(len(dists)), key=dists.__getitem__)
        return q + (self.protos[j] - q).detach(), dists[j]
