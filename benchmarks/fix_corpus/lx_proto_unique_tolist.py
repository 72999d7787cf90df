# spec: {"model": "lx_proto_unique_tolist.py:ProtoNetHead", "init": {"args": [6, 4]}, "inputs": [{"tensor": [9, 6]}, {"tensor": [9], "dtype": "int64", "data": [0, 0, 1, 2, 2, 2, 3, 3, 1]}]}
import torch
from torch import nn


class ProtoNetHead(nn.Module):
    """Prototypical-network head: the per-class mean embedding of the support set, classes from `.unique().tolist()`."""

    def __init__(self, dim, n_way):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.n_way = n_way

    def forward(self, support, labels):
        emb = self.enc(support)
        protos = torch.zeros(self.n_way, emb.shape[1])
        for c in labels.unique().tolist():
            w = (labels == c).float()
            protos[c] = (emb * w[:, None]).sum(0) / w.sum()
        return protos
