# spec: {"model": "diff_guidance.py:GuidedDenoiser", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}]}
import warnings

import torch
from torch import nn


class GuidedDenoiser(nn.Module):
    def __init__(self, dim, guidance_scale=7.5):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.guidance_scale = guidance_scale

    def forward(self, latents):
        uncond = self.net(torch.zeros_like(latents))
        cond = self.net(latents)
        noise_pred = uncond + self.guidance_scale * (cond - uncond)
        if noise_pred.std() > 10:
            warnings.warn("guidance is unstable")
        return latents - noise_pred
