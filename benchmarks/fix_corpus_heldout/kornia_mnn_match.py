# spec: {"model": "kornia_mnn_match.py:MutualNNMatcher", "inputs": [{"tensor": [32, 16]}, {"tensor": [40, 16]}]}
import torch
from torch import nn


class MutualNNMatcher(nn.Module):
    """Mutual nearest-neighbour descriptor matching, as kornia.feature.match_mnn does it."""

    def __init__(self, max_dist=1.5):
        super().__init__()
        self.max_dist = max_dist

    def forward(self, desc1, desc2):
        desc1 = nn.functional.normalize(desc1, dim=-1)
        desc2 = nn.functional.normalize(desc2, dim=-1)
        dm = torch.cdist(desc1, desc2)
        vals, idxs_in_2 = dm.min(dim=1)
        _, idxs_in_1 = dm.min(dim=0)
        idxs1 = torch.arange(dm.size(0))
        mutual = (idxs_in_1[idxs_in_2] == idxs1) & (vals < self.max_dist)
        good = torch.nonzero(mutual, as_tuple=False)[:, 0]
        matches = torch.stack([idxs1[good], idxs_in_2[good]], dim=-1)
        return vals[good].view(-1, 1), matches
