# spec: {"model": "ps_sampler_step_index.py:DDIMSampler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 4}
import torch
from torch import nn


class DDIMSampler(nn.Module):
    """diffusers-like scheduler step inside the module: the current step is `self._step_index`, used to index the sigma table."""

    def __init__(self, dim, steps=10):
        super().__init__()
        self.eps = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))
        self.register_buffer("sigmas", torch.linspace(1.0, 0.0, steps + 1))
        self._step_index = 0

    def step(self, x, eps):
        sigma, sigma_next = self.sigmas[self._step_index], self.sigmas[self._step_index + 1]
        self._step_index += 1
        return x + (sigma_next - sigma) * eps

    def forward(self, x):
        t = self.sigmas[self._step_index].expand(x.shape[0], 1)
        eps = self.eps(torch.cat([x, t], dim=-1))
        return self.step(x, eps)
