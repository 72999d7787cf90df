# spec: {"model": "rc_ddpm_step_index.py:DDPMStep", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, 9], "variants": [{"inputs": [{"tensor": [2, 8]}, 8]}, {"inputs": [{"tensor": [2, 8]}, 7]}, {"inputs": [{"tensor": [2, 8]}, 6]}]}
import torch
from torch import nn


class DDPMStep(nn.Module):
    """A diffusers-like denoising step: the noise predictor plus the scheduler update, the
    timestep passed as a Python int by the sampling loop."""

    def __init__(self, dim, num_train_timesteps=10):
        super().__init__()
        self.eps = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))
        betas = torch.linspace(1e-4, 0.02, num_train_timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, 0))
        self.register_buffer("betas", betas)

    def forward(self, sample, timestep):
        t_in = torch.full((sample.shape[0], 1), float(timestep))
        eps = self.eps(torch.cat([sample, t_in], dim=-1))
        a_t = self.alphas_cumprod[timestep]
        beta_t = self.betas[timestep]
        return (sample - beta_t / (1 - a_t).sqrt() * eps) / (1 - beta_t).sqrt()
