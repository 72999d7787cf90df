# spec: {"model": "kornia_mnn_desc_loss.py:DescriptorMatcher", "init": {"args": [16, 8]}, "inputs": [{"tensor": [24, 16]}, {"tensor": [20, 16]}]}
import torch
from torch import nn


class DescriptorMatcher(nn.Module):
    """Descriptor head trained to pull mutual nearest neighbours together (kornia match_mnn, then a loss on the matches)."""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.proj = nn.Linear(in_dim, out_dim)

    def forward(self, feats1, feats2):
        desc1 = nn.functional.normalize(self.proj(feats1), dim=-1)
        desc2 = nn.functional.normalize(self.proj(feats2), dim=-1)
        dist = torch.cdist(desc1, desc2)
        _, idxs_in_2 = dist.min(dim=1)
        _, idxs_in_1 = dist.min(dim=0)
        idxs1 = torch.arange(desc1.shape[0], device=desc1.device)
        mutual = idxs_in_1[idxs_in_2] == idxs1
        good = mutual.nonzero(as_tuple=True)[0]
        matched = desc1[idxs1[good]] - desc2[idxs_in_2[good]]
        return matched.pow(2).sum(-1).mean()
