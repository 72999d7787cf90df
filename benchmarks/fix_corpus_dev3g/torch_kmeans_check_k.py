# spec: {"model": "torch_kmeans_check_k.py:ClusterAssignHead", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 10, 8]}]}
from typing import Optional, Union

import torch
from torch import LongTensor, Tensor, nn


# vendored from torch-kmeans 0.2.0 torch_kmeans/clustering/kmeans.py (KMeans._check_k)
class KMeansCheck:
    def __init__(self, n_clusters: Optional[int] = 8):
        self.n_clusters = n_clusters
        self._k_max = None

    def _check_k(self, k: Optional[Union[LongTensor, Tensor, int]], dims, device=torch.device("cpu")) -> LongTensor:
        """Check and (re-)format number of clusters k."""
        bs, n, d = dims
        if not isinstance(k, Tensor):
            if k is None:
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


class ClusterAssignHead(nn.Module):
    def __init__(self, dim, n_clusters):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.centers = nn.Parameter(torch.randn(n_clusters, dim))
        self.kmeans = KMeansCheck(n_clusters)

    def forward(self, x):
        k = self.kmeans._check_k(None, x.shape, device=x.device)
        z = self.proj(x)
        centers = self.centers[: self.kmeans._k_max]
        dist = torch.cdist(z, centers.unsqueeze(0).expand(z.shape[0], -1, -1))
        return dist.argmin(-1), k
