# spec: {"model": "kornia_edge_loss.py:EdgeAwareSmoothness", "inputs": [{"tensor": [2, 1, 16, 16], "init": "rand"}, {"tensor": [2, 3, 16, 16], "init": "rand"}]}
import kornia
import torch
from torch import nn


class EdgeAwareSmoothness(nn.Module):
    """Monodepth-style disparity smoothness loss with kornia's Sobel, weighted on valid pixels only."""

    def __init__(self, min_disp=0.05):
        super().__init__()
        self.min_disp = min_disp

    def forward(self, disp, image):
        mean_disp = disp.mean(dim=(2, 3), keepdim=True)
        norm_disp = disp / (mean_disp + 1e-7)
        grad_disp = kornia.filters.spatial_gradient(norm_disp).abs().sum(2)
        grad_img = kornia.filters.spatial_gradient(image).abs().mean(1).sum(1, keepdim=True)
        weighted = grad_disp * torch.exp(-grad_img)
        valid = disp > self.min_disp
        return weighted[valid].mean()
