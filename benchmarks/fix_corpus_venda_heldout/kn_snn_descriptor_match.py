# spec: {"model": "kn_snn_descriptor_match.py:DescriptorMatcher", "init": {"args": [16, 8]}, "inputs": [{"tensor": [12, 16]}, {"tensor": [10, 16]}], "calls": 2}
from typing import Optional, Tuple

import torch
from torch import nn


# vendored from kornia 0.9.0 kornia/feature/matching.py
def _cdist(d1: torch.Tensor, d2: torch.Tensor) -> torch.Tensor:
    r"""Compute pairwise L2 distances between rows of d1 and d2."""
    half = (torch.float16, torch.bfloat16)
    output_dtype = d1.dtype
    if output_dtype in half and d2.dtype == output_dtype:
        d1, d2 = d1.float(), d2.float()
    distances = torch.cdist(d1, d2)
    return distances.to(output_dtype)


def _get_lazy_distance_matrix(
    desc1: torch.Tensor, desc2: torch.Tensor, dm_: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """Check validity of provided distance matrix, or calculates L2-distance matrix if dm is not provided."""
    if dm_ is None:
        dm = _cdist(desc1, desc2)
    else:
        dm = dm_
    return dm


def _no_match(dm: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Output empty tensors."""
    dists = torch.empty(0, 1, device=dm.device, dtype=dm.dtype)
    idxs = torch.empty(0, 2, device=dm.device, dtype=torch.long)
    return dists, idxs


def match_snn(
    desc1: torch.Tensor, desc2: torch.Tensor, th: float = 0.8, dm: Optional[torch.Tensor] = None
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Find nearest neighbors in desc2 for each vector in desc1.

    The method satisfies first to second nearest neighbor distance <= th.
    """
    if desc1.shape[0] == 0 or desc2.shape[0] < 2:  # We cannot perform snn check, so output empty matches
        return _no_match(desc1)
    distance_matrix = _get_lazy_distance_matrix(desc1, desc2, dm)
    vals, idxs_in_2 = torch.topk(distance_matrix, 2, dim=1, largest=False)
    ratio = vals[:, 0] / vals[:, 1]
    mask = ratio <= th
    match_dists = ratio[mask]
    if len(match_dists) == 0:
        return _no_match(distance_matrix)
    idxs_in1 = torch.arange(0, idxs_in_2.size(0), device=distance_matrix.device)[mask]
    idxs_in_2 = idxs_in_2[:, 0][mask]
    matches_idxs = torch.cat([idxs_in1.view(-1, 1), idxs_in_2.view(-1, 1)], 1)
    return match_dists.view(-1, 1), matches_idxs.view(-1, 2)


class DescriptorMatcher(nn.Module):
    """A learned descriptor head followed by Lowe's ratio test (kornia.feature.DescriptorMatcher('snn'))."""

    def __init__(self, in_dim=16, out_dim=8, th=0.9):
        super().__init__()
        self.proj = nn.Linear(in_dim, out_dim)
        self.th = th

    def forward(self, feats1, feats2):
        desc1 = nn.functional.normalize(self.proj(feats1), dim=-1)
        desc2 = nn.functional.normalize(self.proj(feats2), dim=-1)
        dists, idxs = match_snn(desc1, desc2, self.th)
        return dists, idxs
