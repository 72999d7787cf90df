# spec: {"model": "diff_ema_decay_warmup_step.py:EMADenoiser", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}], "calls": 3}
import copy

import torch
from torch import nn


class EMADenoiser(nn.Module):
    """Denoiser that keeps an EMA copy of itself, updated in forward with diffusers' EMAModel warmup decay."""

    def __init__(self, channels, max_decay=0.9999, inv_gamma=1.0, power=2 / 3):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(channels, 32, 3, padding=1), nn.SiLU(), nn.Conv2d(32, channels, 3, padding=1))
        self.ema = copy.deepcopy(self.net).requires_grad_(False)
        self.max_decay = max_decay
        self.inv_gamma = inv_gamma
        self.power = power
        self.optimization_step = 0

    def get_decay(self, step):
        value = 1 - (1 + step / self.inv_gamma) ** -self.power
        return max(0.0, min(value, self.max_decay))

    @torch.no_grad()
    def ema_step(self):
        decay = self.get_decay(self.optimization_step)
        for e, p in zip(self.ema.parameters(), self.net.parameters()):
            e.mul_(decay).add_(p.detach(), alpha=1 - decay)
        self.optimization_step += 1

    def forward(self, x):
        out = self.net(x)
        self.ema_step()
        return out, self.ema(x)
