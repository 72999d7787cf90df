# spec: {"model": "c4_kornia_edges.py:EdgeAwareSmoothness", "init": {}, "inputs": [{"tensor": [2, 3, 12, 12]}, {"tensor": [2, 1, 12, 12]}], "calls": 3}
import kornia
import torch
from torch import nn


class EdgeAwareSmoothness(nn.Module):
    """Monodepth-style edge-aware smoothness with kornia helpers: grayscale, a Gaussian blur,
    Sobel gradients of image and disparity, the disparity normalised by its mean."""

    def __init__(self, blur_sigma=1.0):
        super().__init__()
        self.blur_sigma = blur_sigma

    def forward(self, image, disp):
        mean_disp = disp.mean(2, True).mean(3, True)
        disp = disp / (mean_disp + 1e-7)
        gray = kornia.color.rgb_to_grayscale(image)
        gray = kornia.filters.gaussian_blur2d(gray, (5, 5), (self.blur_sigma, self.blur_sigma))
        img_grad = kornia.filters.spatial_gradient(gray, mode="sobel")
        disp_grad = kornia.filters.spatial_gradient(disp, mode="sobel")
        weights = torch.exp(-img_grad.abs().mean(1, keepdim=True))
        return (disp_grad.abs() * weights).mean()
