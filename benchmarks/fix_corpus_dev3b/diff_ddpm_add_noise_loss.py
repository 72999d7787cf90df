# spec: {"model": "diff_ddpm_add_noise_loss.py:DenoiserLoss", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "mode": "train"}
import torch
from diffusers import DDPMScheduler
from torch import nn


class DenoiserLoss(nn.Module):
    """The epsilon-prediction training loss of a DDPM (diffusers' training examples)."""

    def __init__(self, dim, steps=50):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))
        self.sched = DDPMScheduler(num_train_timesteps=steps)
        self.steps = steps

    def forward(self, x0):
        noise = torch.randn_like(x0)
        t = torch.randint(0, self.steps, (x0.shape[0],))
        xt = self.sched.add_noise(x0, noise, t)
        pred = self.net(torch.cat([xt, (t.float() / self.steps).unsqueeze(1)], dim=1))
        return nn.functional.mse_loss(pred, noise)
