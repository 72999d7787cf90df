# spec: {"model": "rc_guidance_scale.py:CFGDenoiser", "init": {"args": [8, 5]}, "inputs": [{"tensor": [2, 8]}, {"tensor": [2, 5]}, 7.5, 3], "variants": [{"inputs": [{"tensor": [2, 8]}, {"tensor": [2, 5]}, 5.0, 2]}, {"inputs": [{"tensor": [2, 8]}, {"tensor": [2, 5]}, 3.0, 1]}, {"inputs": [{"tensor": [2, 8]}, {"tensor": [2, 5]}, 1.0, 0]}]}
import torch
from torch import nn


class CFGDenoiser(nn.Module):
    """Classifier-free guidance wrapper (k-diffusion / diffusers pipeline style): guidance
    scale and the step index are Python numbers from the sampling loop; sigma looked up by
    the step."""

    def __init__(self, dim, cond_dim, n_sigmas=4):
        super().__init__()
        self.net = nn.Linear(dim + cond_dim, dim)
        self.register_buffer("sigmas", torch.linspace(1.0, 0.1, n_sigmas))

    def forward(self, x, cond, guidance_scale, step):
        sigma = self.sigmas[step]
        uncond = self.net(torch.cat([x, torch.zeros_like(cond)], -1))
        cnd = self.net(torch.cat([x, cond], -1))
        eps = uncond + guidance_scale * (cnd - uncond)
        return x - sigma * eps
