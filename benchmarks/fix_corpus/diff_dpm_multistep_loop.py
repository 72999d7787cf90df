# spec: {"model": "diff_dpm_multistep_loop.py:LatentSampler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}]}
import torch
from diffusers import DPMSolverMultistepScheduler
from torch import nn


class LatentSampler(nn.Module):
    """A tiny latent denoiser sampled with diffusers' DPM-Solver++ scheduler for a few steps."""

    def __init__(self, dim, steps=4):
        super().__init__()
        self.t_embed = nn.Embedding(1000, dim)
        self.eps_net = nn.Sequential(nn.Linear(dim, 64), nn.SiLU(), nn.Linear(64, dim))
        self.scheduler = DPMSolverMultistepScheduler(num_train_timesteps=1000)
        self.steps = steps

    def forward(self, noise):
        self.scheduler.set_timesteps(self.steps)
        latents = noise * self.scheduler.init_noise_sigma
        for t in self.scheduler.timesteps:
            eps = self.eps_net(latents + self.t_embed(t.long()))
            latents = self.scheduler.step(eps, t, latents).prev_sample
        return latents
