# spec: {"model": "s4_scheduler_sigma_float.py:EulerDenoiser", "init": {"args": [4]}, "inputs": [{"tensor": [1, 4, 8, 8]}, 14.6], "variants": [{"inputs": [{"tensor": [1, 4, 8, 8]}, 9.72]}, {"inputs": [{"tensor": [1, 4, 8, 8]}, 6.43]}]}
import torch
from torch import nn


class EulerDenoiser(nn.Module):
    """k-diffusion style denoiser wrapper: the model input is scaled by the current sigma (a float)."""

    def __init__(self, channels, sigma_data=1.0):
        super().__init__()
        self.inner = nn.Conv2d(channels, channels, 3, padding=1)
        self.sigma_data = sigma_data

    def forward(self, x, sigma):
        c_in = 1.0 / (sigma**2 + self.sigma_data**2) ** 0.5
        c_skip = self.sigma_data**2 / (sigma**2 + self.sigma_data**2)
        return x * c_skip + self.inner(x * c_in)
