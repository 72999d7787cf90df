# spec: {"model": "kornia_ransac_homography.py:HomographyAligner", "inputs": [{"tensor": [30, 2], "init": "rand"}]}
import torch
from kornia.geometry.ransac import RANSAC
from torch import nn


class HomographyAligner(nn.Module):
    """Predicts matched keypoints in a second view and fits a homography with kornia's RANSAC."""

    def __init__(self):
        super().__init__()
        self.offset = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        self.ransac = RANSAC(model_type="homography", inl_th=0.05, batch_size=64, max_iter=3)

    def forward(self, kpts):
        kpts2 = kpts + 0.05 * self.offset(kpts)
        H, inliers = self.ransac(kpts, kpts2)
        return H, inliers
