# spec: {"model": "tk_kmeans_check_k.py:SlotPoolingHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 12, 8]}, {"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 3}, {"tensor": [2], "dtype": "int64", "data": [3, 3]}], "calls": 2}
from typing import Tuple

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

    Args:
        x: samples (BS, N, D)
        labels: label per sample (BS, M, N)
        k_max_range: range of max number if clusters (BS, K_max)

    Returns:

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


class SlotPoolingHead(nn.Module):
    """Pools token features into k cluster slots given an assignment, as a clustering layer would."""

    def __init__(self, dim, n_clusters=None):
        super().__init__()
        self.n_clusters = n_clusters
        self.proj = nn.Linear(dim, dim)
        self._k_max = None

    # vendored from torch-kmeans 0.2.0 torch_kmeans/clustering/kmeans.py (ClusteringModule._check_k)
    def _check_k(
        self, k, dims: Tuple, device: torch.device = torch.device("cpu")
    ) -> LongTensor:
        """Check and (re-)format number of clusters k."""
        bs, n, d = dims
        if not isinstance(k, Tensor):
            if k is None:  # use specified default number of clusters
                if self.n_clusters is None:
                    raise ValueError(
                        "Did not provide number of clusters k on call and "
                        "did not specify default 'n_clusters' at initialization."
                    )
                k = self.n_clusters
            if isinstance(k, int):  # convert to tensor
                k = torch.empty(bs, dtype=torch.long).fill_(k)
            else:
                raise TypeError(
                    f"k has to be int, torch.Tensor or None " f"but got {type(k)}."
                )
        if len(k.shape) > 1:
            k = k.squeeze()
            assert len(k.shape) == 1
        if k.shape[0] == 1:
            k = k.repeat(bs)
        if (k >= n).any():
            raise ValueError(
                f"Specified 'k' must be smaller than "
                f"number of samples n={n}, but got: {k}."
            )
        if (k <= 1).any():
            raise ValueError("Clustering for k=1 is ambiguous.")
        self._k_max = int(k.max())
        return k.to(dtype=torch.long, device=device)

    def forward(self, x, assignment, k):
        h = self.proj(x)
        k = self._check_k(k, dims=h.size(), device=h.device)
        k_max_range = torch.arange(self._k_max, device=h.device)[None, :].expand(h.size(0), -1)
        slots = group_by_label_mean(h, assignment[:, None, :], k_max_range)
        return slots.squeeze(1)
