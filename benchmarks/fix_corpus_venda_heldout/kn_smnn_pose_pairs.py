# spec: {"model": "kn_smnn_pose_pairs.py:MutualMatchHead", "init": {"args": [16]}, "inputs": [{"tensor": [12, 16]}, {"tensor": [11, 16]}], "calls": 2}
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
    if dm_ is None:
        dm = _cdist(desc1, desc2)
    else:
        dm = dm_
    return dm


def _no_match(dm: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    dists = torch.empty(0, 1, device=dm.device, dtype=dm.dtype)
    idxs = torch.empty(0, 2, device=dm.device, dtype=torch.long)
    return dists, idxs


def match_snn(
    desc1: torch.Tensor, desc2: torch.Tensor, th: float = 0.8, dm: Optional[torch.Tensor] = None
) -> Tuple[torch.Tensor, torch.Tensor]:
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


def match_smnn(
    desc1: torch.Tensor, desc2: torch.Tensor, th: float = 0.95, dm: Optional[torch.Tensor] = None
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Find mutual nearest neighbors in desc2 for each vector in desc1.

    the method satisfies first to second nearest neighbor distance <= th.
    """
    if (desc1.shape[0] < 2) or (desc2.shape[0] < 2):
        return _no_match(desc1)
    distance_matrix = _get_lazy_distance_matrix(desc1, desc2, dm)

    dists1, idx1 = match_snn(desc1, desc2, th, distance_matrix)
    dists2, idx2 = match_snn(desc2, desc1, th, distance_matrix.t())

    if len(dists2) > 0 and len(dists1) > 0:
        # Each target occurs at most once in idx2. Join on its integer index instead of
        # comparing every pair of matches in floating point (quadratic memory and inexact in half).
        reverse_lookup = torch.full((desc2.size(0),), -1, dtype=torch.long, device=idx2.device)
        reverse_lookup[idx2[:, 0]] = torch.arange(idx2.size(0), device=idx2.device)
        reverse_positions = reverse_lookup[idx1[:, 1]]
        mutual = (reverse_positions >= 0) & (idx2[reverse_positions, 1] == idx1[:, 0])
        # match_snn already returns source indices in ascending order.
        matches_idxs = idx1[mutual]
        match_dists = torch.maximum(dists1[mutual], dists2[reverse_positions[mutual]])
    else:
        match_dists, matches_idxs = _no_match(distance_matrix)
    return match_dists, matches_idxs


class MutualMatchHead(nn.Module):
    """Symmetric ratio-test matching of two keypoint sets' descriptors, returning the matched pairs' weights."""

    def __init__(self, dim=16, th=0.95):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.th = th

    def forward(self, desc1, desc2):
        desc1 = self.norm(desc1)
        desc2 = self.norm(desc2)
        dists, idxs = match_smnn(desc1, desc2, self.th)
        weights = 1.0 - dists.squeeze(-1)
        return weights, idxs
