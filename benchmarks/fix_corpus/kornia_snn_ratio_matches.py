# spec: {"model": "kornia_snn_ratio_matches.py:DescriptorMatcherLoss", "init": {"args": [16, 8]}, "inputs": [{"tensor": [20, 16]}, {"tensor": [24, 16]}]}
import torch
import torch.nn as nn
import kornia.feature as KF


class DescriptorMatcherLoss(nn.Module):
    """Learned descriptor projection matched with kornia's Lowe ratio test; loss on the kept matches."""

    def __init__(self, in_dim, out_dim, ratio=0.9):
        super().__init__()
        self.proj = nn.Linear(in_dim, out_dim)
        self.ratio = ratio

    def forward(self, desc1, desc2):
        d1 = nn.functional.normalize(self.proj(desc1), dim=-1)
        d2 = nn.functional.normalize(self.proj(desc2), dim=-1)
        dists, idxs = KF.match_snn(d1, d2, self.ratio)
        return dists.mean(), idxs.shape[0]
