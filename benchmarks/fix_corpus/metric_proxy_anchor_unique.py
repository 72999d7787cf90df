# spec: {"model": "metric_proxy_anchor_unique.py:ProxyAnchorLoss", "init": {"args": [10, 16]}, "inputs": [{"tensor": [12, 16]}, {"tensor": [12], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
import torch.nn.functional as F
from torch import nn


class ProxyAnchorLoss(nn.Module):
    """Proxy-Anchor loss (Kim et al. reference code): the positive term averages over the classes present in the batch."""

    def __init__(self, n_classes, dim, margin=0.1, alpha=32.0):
        super().__init__()
        self.proxies = nn.Parameter(torch.randn(n_classes, dim))
        self.n_classes = n_classes
        self.margin = margin
        self.alpha = alpha

    def forward(self, x, labels):
        cos = F.normalize(x) @ F.normalize(self.proxies).T
        pos_onehot = F.one_hot(labels, self.n_classes).float()
        neg_onehot = 1 - pos_onehot
        pos_exp = torch.exp(-self.alpha * (cos - self.margin))
        neg_exp = torch.exp(self.alpha * (cos + self.margin))
        with_pos = torch.nonzero(pos_onehot.sum(dim=0) != 0).squeeze(1)
        num_valid = len(with_pos)
        p_sim_sum = torch.where(pos_onehot == 1, pos_exp, torch.zeros_like(pos_exp)).sum(dim=0)
        n_sim_sum = torch.where(neg_onehot == 1, neg_exp, torch.zeros_like(neg_exp)).sum(dim=0)
        pos_term = torch.log(1 + p_sim_sum).sum() / num_valid
        neg_term = torch.log(1 + n_sim_sum).sum() / self.n_classes
        return pos_term + neg_term
