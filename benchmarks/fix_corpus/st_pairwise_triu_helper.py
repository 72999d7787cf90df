# spec: {"model": "st_pairwise_triu_helper.py:DiversityRegularizer", "init": {"args": [10, 6]}, "inputs": [{"tensor": [7, 10]}]}
import torch
from torch import nn


def upper_triangle_mask(n, device=None):
    """Pairs (i, j) with i < j, as pairwise-loss utilities write it."""
    return torch.ones(n, n, device=device).triu(diagonal=1).bool()


class DiversityRegularizer(nn.Module):
    """A prototype/embedding diversity penalty over distinct pairs (repulsive term of
    prototype networks and mixture-of-experts balancing losses)."""

    def __init__(self, dim, out_dim, margin=1.0):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, out_dim), nn.Tanh())
        self.margin = margin

    def forward(self, x):
        z = self.encoder(x)
        dist = torch.cdist(z, z)
        mask = upper_triangle_mask(z.shape[0], z.device)
        pair_dist = torch.masked_select(dist, mask)
        penalty = torch.relu(self.margin - pair_dist)
        ranked = penalty.sort(descending=True).values
        return z, ranked[:3].sum() + penalty.mean()
