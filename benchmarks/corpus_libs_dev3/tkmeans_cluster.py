"""torch-kmeans: batched k-means clustering of point clouds (one problem per batch element)."""

import torch
from torch_kmeans import KMeans


class PointClusters(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.km = KMeans(n_clusters=3, max_iter=10, verbose=False, seed=0)

    def forward(self, pts):
        result = self.km(pts)
        return result.labels, result.centers


def make():
    torch.manual_seed(0)
    return PointClusters(), (torch.randn(2, 20, 2),)
