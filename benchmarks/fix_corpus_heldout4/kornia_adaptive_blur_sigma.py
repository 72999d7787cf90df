# spec: {"model": "kornia_adaptive_blur_sigma.py:DenoiseThenSegment", "init": {"args": [3]}, "inputs": [{"tensor": [1, 3, 32, 32], "init": "rand"}]}
import kornia
import torch
from torch import nn


class DenoiseThenSegment(nn.Module):
    """Segmentation net that pre-blurs with kornia, choosing the Gaussian sigma from the image's estimated noise level."""

    def __init__(self, num_classes, base_sigma=0.5):
        super().__init__()
        self.base_sigma = base_sigma
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, num_classes, 1))

    def estimate_noise(self, img):
        lap = kornia.filters.laplacian(kornia.color.rgb_to_grayscale(img), kernel_size=3)
        return lap.abs().median()

    def forward(self, img):
        sigma = self.base_sigma + 2.0 * float(self.estimate_noise(img))
        img = kornia.filters.gaussian_blur2d(img, (5, 5), (sigma, sigma))
        return self.net(img)
