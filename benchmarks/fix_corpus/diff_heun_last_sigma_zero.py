# spec: {"model": "diff_heun_last_sigma_zero.py:HeunSampler", "init": {"args": [4]}, "inputs": [{"tensor": [1, 4, 8, 8]}]}
import torch
from torch import nn


def get_sigmas_karras(n, sigma_min, sigma_max, rho=7.0):
    ramp = torch.linspace(0, 1, n)
    min_inv_rho = sigma_min ** (1 / rho)
    max_inv_rho = sigma_max ** (1 / rho)
    sigmas = (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho
    return torch.cat([sigmas, sigmas.new_zeros([1])])


def to_d(x, sigma, denoised):
    return (x - denoised) / sigma


class HeunSampler(nn.Module):
    """k-diffusion's Heun sampler over Karras sigmas around a tiny denoiser; the last step is plain Euler."""

    def __init__(self, channels, steps=5):
        super().__init__()
        self.net = nn.Conv2d(channels, channels, 3, padding=1)
        self.steps = steps

    def denoise(self, x, sigma):
        c_skip = 1 / (sigma**2 + 1)
        return c_skip * x + self.net(x) * sigma / (sigma**2 + 1) ** 0.5

    def forward(self, noise):
        sigmas = get_sigmas_karras(self.steps, 0.02, 80.0)
        x = noise * sigmas[0]
        for i in range(len(sigmas) - 1):
            denoised = self.denoise(x, sigmas[i])
            d = to_d(x, sigmas[i], denoised)
            dt = sigmas[i + 1] - sigmas[i]
            if sigmas[i + 1] == 0:
                x = x + d * dt
            else:
                x_2 = x + d * dt
                d_2 = to_d(x_2, sigmas[i + 1], self.denoise(x_2, sigmas[i + 1]))
                x = x + (d + d_2) / 2 * dt
        return x
