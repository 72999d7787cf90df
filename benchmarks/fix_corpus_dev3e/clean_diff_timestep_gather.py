# spec: {"model": "clean_diff_timestep_gather.py:DDPMTrainingLoss", "init": {"args": [8, 1000]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 1000}]}
import torch
from torch import nn


def extract(a, t, x_shape):
    """Gather table values at a batch of timesteps, shaped for broadcasting (guided-diffusion)."""
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


class DDPMTrainingLoss(nn.Module):
    """DDPM epsilon loss with per-sample timesteps: the alphas table gathered at the timestep
    tensor, never converted to Python numbers."""

    def __init__(self, dim, timesteps):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))
        abar = torch.cumprod(1 - torch.linspace(1e-4, 0.02, timesteps), 0)
        self.register_buffer("sqrt_abar", abar.sqrt())
        self.register_buffer("sqrt_one_minus_abar", (1 - abar).sqrt())
        self.timesteps = timesteps

    def forward(self, x0, t):
        noise = torch.randn_like(x0)
        xt = extract(self.sqrt_abar, t, x0.shape) * x0 + extract(self.sqrt_one_minus_abar, t, x0.shape) * noise
        eps = self.net(torch.cat([xt, (t.float() / self.timesteps)[:, None]], dim=-1))
        return nn.functional.mse_loss(eps, noise)
