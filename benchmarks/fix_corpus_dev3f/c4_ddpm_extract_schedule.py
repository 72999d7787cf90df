# spec: {"model": "c4_ddpm_extract_schedule.py:GaussianDiffusion", "init": {"kwargs": {"timesteps": 100}}, "inputs": [{"tensor": [2, 3, 8, 8]}, {"tensor": [2], "dtype": "int64", "init": "randint", "low": 0, "high": 100}], "calls": 3}
import math

import torch
import torch.nn.functional as F
from torch import nn


def extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


def cosine_beta_schedule(timesteps, s=0.008):
    steps = timesteps + 1
    t = torch.linspace(0, timesteps, steps, dtype=torch.float64) / timesteps
    alphas_cumprod = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)


class GaussianDiffusion(nn.Module):
    """denoising-diffusion-pytorch: the schedule registered as float32 buffers once, read per
    sample with ``extract``; the loss weight chosen by ``objective`` at construction."""

    def __init__(self, timesteps=1000, objective="pred_noise", min_snr_gamma=5):
        super().__init__()
        self.objective = objective
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.SiLU(), nn.Conv2d(16, 3, 3, padding=1))
        betas = cosine_beta_schedule(timesteps)
        alphas = 1.0 - betas
        alphas_cumprod = torch.cumprod(alphas, dim=0)
        (timesteps,) = betas.shape
        self.num_timesteps = int(timesteps)

        def register_buffer(name, val):
            return self.register_buffer(name, val.to(torch.float32))

        register_buffer("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
        register_buffer("sqrt_one_minus_alphas_cumprod", torch.sqrt(1.0 - alphas_cumprod))
        snr = alphas_cumprod / (1 - alphas_cumprod)
        maybe_clipped_snr = snr.clone().clamp_(max=min_snr_gamma)
        if objective == "pred_noise":
            register_buffer("loss_weight", maybe_clipped_snr / snr)
        elif objective == "pred_x0":
            register_buffer("loss_weight", maybe_clipped_snr)

    def q_sample(self, x_start, t, noise=None):
        noise = torch.randn_like(x_start) if noise is None else noise
        return (
            extract(self.sqrt_alphas_cumprod, t, x_start.shape) * x_start
            + extract(self.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise
        )

    def forward(self, x_start, t):
        b, c, h, w = x_start.shape
        noise = torch.randn_like(x_start)
        x = self.q_sample(x_start=x_start, t=t, noise=noise)
        model_out = self.net(x)
        if self.objective == "pred_noise":
            target = noise
        elif self.objective == "pred_x0":
            target = x_start
        else:
            raise ValueError(f"unknown objective {self.objective}")
        loss = F.mse_loss(model_out, target, reduction="none")
        loss = loss.reshape(b, -1).mean(dim=1)
        loss = loss * extract(self.loss_weight, t, loss.shape)
        return loss.mean()
