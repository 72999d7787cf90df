# spec: {"model": "diffusers_ddpm_reverse_loop.py:DDPMSampler1D", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}]}
import torch
import torch.nn as nn
from diffusers import DDPMScheduler


class DDPMSampler1D(nn.Module):
    """Tiny MLP denoiser sampled with diffusers' DDPMScheduler over a short schedule."""

    def __init__(self, dim, num_inference_steps=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))
        self.scheduler = DDPMScheduler(num_train_timesteps=100)
        self.num_inference_steps = num_inference_steps

    def forward(self, noise):
        self.scheduler.set_timesteps(self.num_inference_steps)
        sample = noise
        for t in self.scheduler.timesteps:
            t_in = t.float().expand(sample.size(0), 1) / 100
            eps = self.net(torch.cat([sample, t_in], dim=-1))
            sample = self.scheduler.step(eps, t, sample).prev_sample
        return sample
