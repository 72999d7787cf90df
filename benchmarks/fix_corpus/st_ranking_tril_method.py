# spec: {"model": "st_ranking_tril_method.py:PairwiseRankingLoss", "init": {"args": [12]}, "inputs": [{"tensor": [6, 12]}, {"tensor": [6]}]}
import torch
from torch import nn


class PairwiseRankingLoss(nn.Module):
    """RankNet-style loss over all ordered pairs below the diagonal (learning-to-rank code
    and SupCon variants), the pairs taken with `masked_select` of a `tril` of ones."""

    def __init__(self, dim):
        super().__init__()
        self.scorer = nn.Linear(dim, 1)

    def forward(self, x, relevance):
        s = self.scorer(x).squeeze(-1)
        diff = s[:, None] - s[None, :]
        rel = torch.sign(relevance[:, None] - relevance[None, :])
        lower = torch.tril(torch.ones_like(diff), diagonal=-1) > 0
        d = diff.masked_select(lower)
        r = rel.masked_select(lower)
        loss = torch.nn.functional.softplus(-r * d)
        return loss.mean(), d.detach()
