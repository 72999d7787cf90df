# spec: {"model": "diff_ddim_step_index.py:DDIMSampler", "inputs": [{"tensor": [1, 3, 8, 8]}, {"tensor": [1], "dtype": "int64", "data": [600]}]}
import torch
from diffusers import DDIMScheduler
from torch import nn


class DDIMSampler(nn.Module):
    """One DDIM step with diffusers' scheduler around a tiny conv denoiser (random weights)."""

    def __init__(self):
        super().__init__()
        self.scheduler = DDIMScheduler(num_train_timesteps=1000)
        self.scheduler.set_timesteps(10)
        self.denoiser = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.SiLU(), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, sample, t):
        eps = self.denoiser(sample)
        return self.scheduler.step(eps, t, sample).prev_sample
