# spec: {"model": "s4_num_inference_steps_linspace.py:DDIMSampler", "init": {"args": [4]}, "inputs": [{"tensor": [1, 4, 8, 8]}], "kwargs": {"num_inference_steps": 3}, "variants": [{"inputs": [{"tensor": [1, 4, 8, 8]}], "kwargs": {"num_inference_steps": 4}}, {"inputs": [{"tensor": [1, 4, 8, 8]}], "kwargs": {"num_inference_steps": 5}}]}
import torch
from torch import nn


class DDIMSampler(nn.Module):
    """A compiled sampling loop whose timestep grid comes from `num_inference_steps`."""

    def __init__(self, channels, num_train_timesteps=1000):
        super().__init__()
        self.eps_model = nn.Conv2d(channels, channels, 3, padding=1)
        self.num_train_timesteps = num_train_timesteps

    def forward(self, latents, num_inference_steps=50):
        timesteps = torch.linspace(self.num_train_timesteps - 1, 0, num_inference_steps)
        for t in timesteps:
            eps = self.eps_model(latents)
            latents = latents - eps * (t / self.num_train_timesteps)
        return latents
