# spec: {"model": "r3_cfg_sampler_guidance.py:CFGSampler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "kwargs": {"num_steps": 3, "guidance_scale": 7.5}, "variants": [{"inputs": [{"tensor": [2, 8]}], "kwargs": {"num_steps": 3, "guidance_scale": 5.0}}, {"inputs": [{"tensor": [2, 8]}], "kwargs": {"num_steps": 3, "guidance_scale": 3.0}}]}
import torch
from torch import nn


class CFGSampler(nn.Module):
    """Classifier-free guidance sampling loop with a per-call guidance scale."""

    def __init__(self, dim):
        super().__init__()
        self.eps = nn.Sequential(nn.Linear(dim, 32), nn.SiLU(), nn.Linear(32, dim))
        self.null = nn.Parameter(torch.zeros(dim))

    def forward(self, x, num_steps=10, guidance_scale=7.5):
        for _ in range(num_steps):
            e_c = self.eps(x)
            e_u = self.eps(x + self.null)
            e = e_u + guidance_scale * (e_c - e_u)
            x = x - e / num_steps
        return x
