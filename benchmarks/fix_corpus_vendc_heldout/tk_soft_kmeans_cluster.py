# spec: {"model": "tk_soft_kmeans_cluster.py:SoftClusterPooling", "init": {"args": [4]}, "inputs": [{"tensor": [2, 12, 4]}, {"tensor": [2], "dtype": "int64", "data": [3, 3]}], "calls": 2}
import torch
from torch import LongTensor, Tensor, nn


# vendored from torch-kmeans 0.2.0 torch_kmeans/clustering/soft_kmeans.py (SoftKMeans, cosine similarity)
class SoftKMeans(nn.Module):
    def __init__(self, num_init=1, max_iter=20, tol=1e-5, temp=5.0, p_norm=2, verbose=False):
        super().__init__()
        self.num_init = num_init
        self.max_iter = max_iter
        self.tol = tol
        self.temp = temp
        self.p_norm = p_norm
        self.verbose = verbose
        self.eps = torch.finfo(torch.float32).eps

    def _pairwise_distance(self, x: Tensor, centers: Tensor, **kwargs):
        bs, n, d = x.size()
        bs, num_init, k_max, d = centers.size()
        x = torch.nn.functional.normalize(x, dim=-1)
        centers = torch.nn.functional.normalize(centers, dim=-1)
        return torch.einsum("bnd,bmkd->bmnk", x, centers)

    @staticmethod
    def _calculate_shift(centers: Tensor, old_centers: Tensor, p: int = 2) -> Tensor:
        """Calculate center shift w.r.t. centers from last iteration."""
        d = torch.norm((centers - old_centers), p=p, dim=-1)
        d[d == float("inf")] = 0
        return torch.mean(d, dim=-1)

    def _cluster(self, x: Tensor, centers: Tensor, k: LongTensor, **kwargs):
        """
        Run soft version of Lloyd's k-means algorithm.

        Args:
            x: (BS, N, D)
            centers: (BS, num_init, k_max, D)
            k: (BS, )

        """
        bs, n, d = x.size()
        # mask centers for which  k < k_max with inf to get correct assignment
        k_max = torch.max(k).cpu().item()
        k_max_range = torch.arange(k_max, device=x.device)[None, :].expand(bs, -1)
        k_mask = k_max_range >= k[:, None]
        k_mask = k_mask[:, None, :].expand(bs, self.num_init, -1)

        # run soft k-means to convergence
        with torch.no_grad():
            for i in range(self.max_iter):
                centers[k_mask] = 0
                old_centers = centers.clone()
                # update
                centers = self._cluster_iter(x, centers)
                # calculate center shift
                if self.tol is not None:
                    shift = self._calculate_shift(centers, old_centers, p=self.p_norm)
                    if (shift < self.tol).all():
                        if self.verbose:
                            print(
                                f"Full batch converged at iteration "
                                f"{i + 1}/{self.max_iter} "
                                f"with center shifts = "
                                f"{shift.view(-1, self.num_init).mean(-1)}."
                            )
                        break

        # differentiable final pass
        centers[k_mask] = 0
        centers = self._cluster_iter(x, centers)
        return centers[:, 0]

    def _cluster_iter(self, x: Tensor, centers: Tensor) -> Tensor:
        # x: (BS, N, D), centers: (BS, num_init, K, D) -> dist: (BS, num_init, N, K)
        bs, n, d = x.size()
        _, num_init, k, _ = centers.size()
        dist = self._pairwise_distance(x, centers)
        # mask probability for non-existing centers with -inf
        msk = dist == 0  # | (dist == float("inf")) | torch.isnan(dist)
        dist = dist.clone()
        dist[msk] = float("-inf")
        # get soft cluster assignments
        c_assign = torch.softmax(self.temp * dist, dim=-1)
        per_cluster = c_assign.sum(dim=-2)
        # update cluster centers
        cluster_mean = (
            c_assign.permute(0, 1, 3, 2)[:, :, :, None, :]
            @ x[:, None, None, :, :].expand(bs, num_init, k, n, d)
        ).squeeze(-2)
        centers = torch.diag_embed(1.0 / (per_cluster + self.eps)) @ cluster_mean
        centers[msk.any(dim=-2)] = 0
        return centers


class SoftClusterPooling(nn.Module):
    """Differentiable clustering layer (soft k-means) over point features, as in end-to-end clustering nets."""

    def __init__(self, dim):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.soft_kmeans = SoftKMeans()

    def forward(self, x, k):
        h = self.enc(x)
        init = h[:, None, :3].detach().clone()
        return self.soft_kmeans._cluster(h, init, k)
