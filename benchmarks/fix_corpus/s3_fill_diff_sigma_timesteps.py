# spec: {"model": "s3_fill_diff_sigma_timesteps.py:SigmaConditioned", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}]}
import torch
from torch import nn


class SigmaConditioned(nn.Module):
    """Diffusers-like denoiser call: the noise level estimated from the sample is read with
    `.item()` and broadcast to a per-sample timestep tensor with `torch.full(..., dtype=...)`."""

    def __init__(self, channels):
        super().__init__()
        self.net = nn.Conv2d(channels, channels, 3, padding=1)
        self.t_embed = nn.Linear(1, channels)

    def forward(self, sample):
        sigma = sample.std().item()
        timesteps = torch.full((sample.shape[0], 1), sigma, dtype=sample.dtype, device=sample.device)
        emb = self.t_embed(timesteps.log())
        return self.net(sample) + emb[:, :, None, None]
