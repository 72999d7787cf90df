# spec: {"model": "diff_karras_sigmas_list_index.py:EulerKarrasStep", "init": {"args": [6, 20]}, "inputs": [{"tensor": [2, 6]}, {"tensor": [], "dtype": "int64", "init": "randint", "low": 0, "high": 19}]}
import torch
from torch import nn


def karras_sigmas(n, sigma_min=0.002, sigma_max=80.0, rho=7.0):
    ramp = torch.linspace(0, 1, n)
    min_inv_rho = sigma_min ** (1 / rho)
    max_inv_rho = sigma_max ** (1 / rho)
    return (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho


class EulerKarrasStep(nn.Module):
    """k-diffusion style Euler step: the Karras sigmas are kept as a plain Python list (the
    scheduler's `.tolist()` at set-up) and looked up with the step index tensor."""

    def __init__(self, dim, steps):
        super().__init__()
        self.denoiser = nn.Sequential(nn.Linear(dim, 32), nn.GELU(), nn.Linear(32, dim))
        self.sigmas = karras_sigmas(steps).tolist() + [0.0]

    def forward(self, x, step_index):
        sigma = self.sigmas[step_index]
        sigma_next = self.sigmas[step_index + 1]
        denoised = x - sigma * self.denoiser(x / (sigma**2 + 1) ** 0.5)
        d = (x - denoised) / sigma
        return x + d * (sigma_next - sigma)
