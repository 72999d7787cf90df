# spec: {"model": "lp_kmeans_while_true_break.py:KMeansQuantizer", "init": {"args": [6, 4]}, "inputs": [{"tensor": [30, 6]}]}
import torch
from torch import nn


class KMeansQuantizer(nn.Module):
    """Codebook refinement by Lloyd iterations until the centroids stop moving (k-means in a VQ
    tokenizer's forward): `while True` with the exit and the cap inside the body."""

    def __init__(self, dim, k, tol=1e-4, max_iter=10):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.init_centroids = nn.Parameter(torch.randn(k, dim))
        self.tol = tol
        self.max_iter = max_iter

    def forward(self, x):
        z = self.proj(x)
        c = self.init_centroids
        it = 0
        while True:
            assign = torch.cdist(z, c).argmin(dim=1)
            onehot = torch.nn.functional.one_hot(assign, c.shape[0]).to(z.dtype)
            new_c = (onehot.t() @ z + c) / (onehot.sum(0)[:, None] + 1.0)
            shift = (new_c - c).norm(dim=1).max()
            c = new_c
            it += 1
            if shift < self.tol or it >= self.max_iter:
                break
        return z - c[torch.cdist(z, c).argmin(dim=1)]
