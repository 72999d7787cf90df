# spec: {"model": "pcd_equivariance_assert_close.py:InvariantPointEncoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 20, 3]}]}
import torch
from torch import nn


class InvariantPointEncoder(nn.Module):
    """Permutation-invariant point encoder that checks its own invariance on a shuffled copy in
    debug mode (left on)."""

    def __init__(self, dim, debug=True):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(3, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.debug = debug

    def forward(self, pts):
        feat = self.phi(pts).sum(dim=1)
        if self.debug:
            perm = torch.randperm(pts.shape[1])
            torch.testing.assert_close(self.phi(pts[:, perm]).sum(dim=1), feat, rtol=1e-4, atol=1e-4)
        return feat
