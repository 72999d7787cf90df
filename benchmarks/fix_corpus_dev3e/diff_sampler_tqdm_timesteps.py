# spec: {"model": "diff_sampler_tqdm_timesteps.py:TinyDDPMSampler", "init": {"args": [8, 10]}, "inputs": [{"tensor": [2, 8]}]}
import torch
from torch import nn
from tqdm.auto import tqdm


class TinyDDPMSampler(nn.Module):
    """Ancestral sampling loop of a toy DDPM whose `sample()` was turned into forward, progress
    bar included (disabled, as in a library's `progress=False`)."""

    def __init__(self, dim, steps):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.SiLU(), nn.Linear(32, dim))
        betas = torch.linspace(1e-4, 0.05, steps)
        self.register_buffer("betas", betas)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, 0))
        self.steps = steps

    def forward(self, x):
        for i in tqdm(reversed(range(self.steps)), total=self.steps, disable=True):
            beta = self.betas[i]
            abar = self.alphas_cumprod[i]
            eps = self.net(x)
            x = (x - beta / (1 - abar).sqrt() * eps) / (1 - beta).sqrt()
        return x
