# spec: {"model": "lp_sinkhorn_unbounded.py:SinkhornMatcher", "init": {"args": [8]}, "inputs": [{"tensor": [5, 8]}, {"tensor": [5, 8]}]}
import torch
from torch import nn


class SinkhornMatcher(nn.Module):
    """SuperGlue-like soft assignment: Sinkhorn normalization until the row marginals are within
    eps (no iteration cap)."""

    def __init__(self, dim, eps=1e-3):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.eps = eps

    def forward(self, desc0, desc1):
        scores = self.proj(desc0) @ self.proj(desc1).t() / desc0.shape[1] ** 0.5
        log_p = scores.log_softmax(dim=1)
        err = torch.ones(())
        while err > self.eps:
            log_p = log_p - log_p.logsumexp(dim=0, keepdim=True)
            log_p = log_p - log_p.logsumexp(dim=1, keepdim=True)
            err = (log_p.exp().sum(0) - 1).abs().max()
        return log_p.exp()
