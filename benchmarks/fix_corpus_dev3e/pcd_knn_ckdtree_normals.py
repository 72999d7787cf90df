# spec: {"model": "pcd_knn_ckdtree_normals.py:KnnNormalEstimator", "init": {"args": [6]}, "inputs": [{"tensor": [64, 3]}]}
import torch
from scipy.spatial import cKDTree
from torch import nn


class KnnNormalEstimator(nn.Module):
    """Point normals from a PCA over each point's k nearest neighbours, the neighbours found with
    scipy's KD-tree (the open3d-free path of a point-cloud preprocessing module)."""

    def __init__(self, k):
        super().__init__()
        self.k = k
        self.refine = nn.Linear(3, 3)

    def forward(self, points):
        tree = cKDTree(points.detach().cpu().numpy())
        _, nbr = tree.query(points.detach().cpu().numpy(), k=self.k)
        nbr = torch.as_tensor(nbr, dtype=torch.long)
        local = points[nbr] - points[nbr].mean(dim=1, keepdim=True)
        cov = local.transpose(1, 2) @ local
        _, vecs = torch.linalg.eigh(cov)
        return self.refine(vecs[..., 0])
