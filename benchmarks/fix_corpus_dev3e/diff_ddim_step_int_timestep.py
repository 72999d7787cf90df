# spec: {"model": "diff_ddim_step_int_timestep.py:DDIMStep", "init": {"args": [8, 1000, 50]}, "inputs": [{"tensor": [2, 8]}, {"tensor": [1], "dtype": "int64", "init": "randint", "low": 20, "high": 980}]}
import torch
from torch import nn


class DDIMStep(nn.Module):
    """One deterministic DDIM update (eta = 0) around a small eps-predictor, the scheduler's
    alphas_cumprod table kept as a buffer and read at the integer timestep."""

    def __init__(self, dim, num_train_timesteps, num_inference_steps):
        super().__init__()
        self.eps_model = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))
        betas = torch.linspace(1e-4, 0.02, num_train_timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.step_ratio = num_train_timesteps // num_inference_steps
        self.num_train_timesteps = num_train_timesteps

    def forward(self, sample, timestep):
        t = int(timestep)
        prev_t = t - self.step_ratio
        temb = timestep.float().expand(sample.shape[0], 1) / self.num_train_timesteps
        eps = self.eps_model(torch.cat([sample, temb], dim=-1))
        alpha_t = self.alphas_cumprod[t]
        alpha_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.alphas_cumprod.new_tensor(1.0)
        x0 = (sample - (1 - alpha_t).sqrt() * eps) / alpha_t.sqrt()
        return alpha_prev.sqrt() * x0 + (1 - alpha_prev).sqrt() * eps
