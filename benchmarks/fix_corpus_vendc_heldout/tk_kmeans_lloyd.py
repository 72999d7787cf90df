# spec: {"model": "tk_kmeans_lloyd.py:KMeansTokenizer", "init": {"args": [4]}, "inputs": [{"tensor": [2, 16, 4]}, {"tensor": [2], "dtype": "int64", "data": [3, 2]}], "calls": 2}
from typing import Any, Tuple, Union
from warnings import warn

import torch
import torch.nn.functional as F
from torch import LongTensor, Tensor, nn


# vendored from torch-kmeans 0.2.0 torch_kmeans/utils/utils.py
def group_by_label_mean(
    x: Tensor,
    labels: Tensor,
    k_max_range: Tensor,
) -> Tensor:
    """Group samples in x by label
    and calculate grouped mean.
    """
    # main idea: https://stackoverflow.com/a/56155805
    assert isinstance(x, Tensor)
    assert isinstance(labels, Tensor)
    assert isinstance(k_max_range, Tensor)
    bs, n, d = x.size()
    bs_, m, n_ = labels.size()
    assert bs == bs_ and n == n_
    k_max = k_max_range.size(-1)
    M = (
        (
            labels[:, :, :, None].expand(bs, m, n, k_max)
            == k_max_range[:, None, None, :].expand(bs, m, n, k_max)
        )
        .permute(0, 1, 3, 2)
        .to(x.dtype)
    )
    M = F.normalize(M, p=1.0, dim=-1)
    return torch.matmul(M, x[:, None, :, :].expand(bs, m, n, d))


# vendored from torch-kmeans 0.2.0 torch_kmeans/utils/distances.py (LpDistance, p=2)
class LpDistance:
    is_inverted = False

    def pairwise_distance(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.norm(x - y, p=2, dim=-1)


# vendored from torch-kmeans 0.2.0 torch_kmeans/clustering/kmeans.py (KMeans._cluster and helpers)
class KMeans(nn.Module):
    def __init__(self, num_init=2, max_iter=10, p_norm=2, tol=1e-4, verbose=False):
        super().__init__()
        self.num_init = num_init
        self.max_iter = max_iter
        self.p_norm = p_norm
        self.tol = tol
        self.verbose = verbose
        self.distance = LpDistance()

    @torch.no_grad()
    def _cluster(
        self, x: Tensor, centers: Tensor, k: LongTensor, **kwargs
    ) -> Tuple[Tensor, Tensor, Tensor, Union[Tensor, Any]]:
        """
        Run Lloyd's k-means algorithm.

        Args:
            x: (BS, N, D)
            centers: (BS, num_init, k_max, D)
            k: (BS, )

        """
        if not isinstance(self.distance, LpDistance):
            warn("standard k-means should use a non-inverted distance measure.")
        bs, n, d = x.size()
        # mask centers for which  k < k_max with inf to get correct assignment
        k_max = torch.max(k).cpu().item()
        k_max_range = torch.arange(k_max, device=x.device)[None, :].expand(bs, -1)
        k_mask = k_max_range >= k[:, None]
        k_mask = k_mask[:, None, :].expand(bs, self.num_init, -1)

        for i in range(self.max_iter):
            centers[k_mask] = float("inf")
            old_centers = centers.clone()
            # get cluster assignments
            c_assign = self._assign(x, centers)
            # update cluster centers
            centers = group_by_label_mean(x, c_assign, k_max_range)
            if self.tol is not None:
                # calculate center shift
                shift = self._calculate_shift(centers, old_centers, p=self.p_norm)
                if (shift < self.tol).all():
                    if self.verbose:
                        print(
                            f"Full batch converged at iteration "
                            f"{i+1}/{self.max_iter} "
                            f"with center shifts = "
                            f"{shift.view(-1, self.num_init).mean(-1)}."
                        )
                    break

        # select best rnd restart according to inertia
        centers[k_mask] = float("inf")
        c_assign = self._assign(x, centers)
        inertia = self._calculate_inertia(x, centers, c_assign)
        best_init = torch.argmin(inertia, dim=-1)
        b_idx = torch.arange(bs, device=x.device)

        return (
            c_assign[b_idx, best_init],
            centers[b_idx, best_init],
            inertia[b_idx, best_init],
            None,
        )

    def _pairwise_distance(self, x: Tensor, centers: Tensor, **kwargs):
        """Calculate pairwise distances between samples in x and all centers."""
        bs, n, d = x.size()
        bs, num_init, k_max, d = centers.size()
        x = x[:, None, :, None, :].expand(bs, num_init, n, k_max, d).reshape(-1, d)
        centers = (
            centers[:, :, None, :, :].expand(bs, num_init, n, k_max, d).reshape(-1, d)
        )
        return self.distance.pairwise_distance(x, centers, **kwargs).view(
            bs, num_init, n, k_max
        )

    def _assign(self, x: Tensor, centers: Tensor, **kwargs) -> LongTensor:
        """Infer cluster assignment for each sample in x."""
        # dist: (bs, num_init, n, k_max)
        dist = self._pairwise_distance(x, centers)
        # get cluster assignments (center with minimal distance)
        return torch.argmin(dist, dim=-1)  # type: ignore

    @staticmethod
    def _calculate_shift(centers: Tensor, old_centers: Tensor, p: int = 2) -> Tensor:
        """Calculate center shift w.r.t. centers from last iteration."""
        # calculate euclidean distance while replacing inf with 0 in sum
        d = torch.norm((centers - old_centers), p=p, dim=-1)
        d[d == float("inf")] = 0
        # sum(d, dim=-1)**2 -> use mean to be independent of number of points
        return torch.mean(d, dim=-1)

    @staticmethod
    def _calculate_inertia(x: Tensor, centers: Tensor, labels: Tensor) -> Tensor:
        """Compute sum of squared distances of samples
        to their closest cluster center."""
        bs, n, d = x.size()
        m = centers.size(1)
        assert m == labels.size(1)
        # select assigned center by label and calculate squared distance
        assigned_centers = centers.gather(
            index=labels[:, :, :, None].expand(
                labels.size(0), labels.size(1), labels.size(2), d
            ),
            dim=2,
        )
        # squared distance to closest center
        d = (
            torch.norm(
                (x[:, None, :, :].expand(bs, m, n, d) - assigned_centers), p=2, dim=-1
            )
            ** 2
        )
        d[d == float("inf")] = 0
        return torch.sum(d, dim=-1)


class KMeansTokenizer(nn.Module):
    """Quantizes patch features to k-means centroids initialised from the first points (no sampling)."""

    def __init__(self, dim):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.kmeans = KMeans()

    def forward(self, x, k):
        h = self.enc(x)
        bs, n, d = h.shape
        k_max = 3
        centers = torch.stack([h[:, :k_max], h[:, k_max : 2 * k_max]], dim=1).detach().clone()
        labels, centers, inertia, _ = self.kmeans._cluster(h.detach(), centers, k)
        return h + centers.nan_to_num(posinf=0.0).gather(1, labels[..., None].expand(-1, -1, d)), inertia
