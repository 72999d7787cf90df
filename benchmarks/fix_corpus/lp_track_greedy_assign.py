# spec: {"model": "lp_track_greedy_assign.py:GreedyTrackMatcher", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}, {"tensor": [5, 6]}]}
import torch
from torch import nn


class GreedyTrackMatcher(nn.Module):
    """Greedy track-detection assignment (SORT/ByteTrack-like fallback): pairs sorted by cost,
    each taken if neither side is used yet."""

    def __init__(self, dim, max_cost=2.0):
        super().__init__()
        self.emb = nn.Linear(dim, dim)
        self.max_cost = max_cost

    def forward(self, tracks, dets):
        cost = torch.cdist(self.emb(tracks), self.emb(dets))
        pairs = sorted(
            ((cost[i, j], i, j) for i in range(cost.shape[0]) for j in range(cost.shape[1])),
            key=lambda p: p[0],
        )
        used_t, used_d, matched = set(), set(), []
        for c, i, j in pairs:
            if c > self.max_cost:
                break
            if i in used_t or j in used_d:
                continue
            used_t.add(i)
            used_d.add(j)
            matched.append(c)
        return torch.stack(matched).sum() if matched else cost.sum() * 0
