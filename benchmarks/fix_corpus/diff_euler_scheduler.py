# spec: {"model": "diff_euler_scheduler.py:EulerDenoiser", "inputs": [{"tensor": [2, 4, 8, 8]}, {"tensor": [], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
from torch import nn


class TinyUNet(nn.Module):
    def __init__(self, channels=4, hidden=16):
        super().__init__()
        self.conv_in = nn.Conv2d(channels, hidden, 3, padding=1)
        self.time_proj = nn.Linear(1, hidden)
        self.conv_out = nn.Conv2d(hidden, channels, 3, padding=1)

    def forward(self, sample, t):
        h = self.conv_in(sample)
        h = h + self.time_proj(t.view(1, 1).float())[:, :, None, None]
        return self.conv_out(torch.nn.functional.silu(h))


class EulerDenoiser(nn.Module):
    """One step of an Euler discrete scheduler around a denoiser, the way a diffusers
    pipeline calls `scale_model_input` then `step`."""

    def __init__(self, num_train_timesteps=10):
        super().__init__()
        self.unet = TinyUNet()
        sigmas = torch.linspace(14.6, 0.03, num_train_timesteps)
        self.register_buffer("sigmas", torch.cat([sigmas, sigmas.new_zeros(1)]))
        self.init_noise_sigma = float(sigmas.max())

    def scale_model_input(self, sample, step_index):
        sigma = self.sigmas[step_index].item()
        return sample / ((sigma**2 + 1) ** 0.5)

    def forward(self, sample, step_index):
        model_input = self.scale_model_input(sample, step_index)
        noise_pred = self.unet(model_input, step_index)
        sigma = self.sigmas[step_index]
        sigma_next = self.sigmas[step_index + 1]
        pred_original = sample - sigma * noise_pred
        derivative = (sample - pred_original) / sigma
        dt = sigma_next - sigma
        return sample + derivative * dt
