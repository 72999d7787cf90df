# spec: {"model": "c4_realnvp_coupling.py:RealNVP", "init": {"args": [6], "kwargs": {"n_layers": 4}}, "inputs": [{"tensor": [8, 6]}], "calls": 3}
import math

import torch
from torch import nn


class AffineCoupling(nn.Module):
    """RealNVP's affine coupling with a binary mask buffer: scale by ``tanh`` for stability,
    the log-determinant the masked sum of the log-scales."""

    def __init__(self, dim, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        self.scale_net = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(), nn.Linear(hidden, dim), nn.Tanh())
        self.shift_net = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(), nn.Linear(hidden, dim))

    def forward(self, x, reverse=False):
        x_masked = x * self.mask
        s = self.scale_net(x_masked) * (1 - self.mask)
        t = self.shift_net(x_masked) * (1 - self.mask)
        if not reverse:
            y = x_masked + (1 - self.mask) * (x * torch.exp(s) + t)
            log_det = s.sum(dim=1)
        else:
            y = x_masked + (1 - self.mask) * ((x - t) * torch.exp(-s))
            log_det = -s.sum(dim=1)
        return y, log_det


class RealNVP(nn.Module):
    def __init__(self, dim, n_layers=6):
        super().__init__()
        masks = []
        for i in range(n_layers):
            mask = torch.arange(dim) % 2
            masks.append(mask.float() if i % 2 == 0 else (1 - mask).float())
        self.layers = nn.ModuleList([AffineCoupling(dim, m) for m in masks])
        self.dim = dim

    def log_prob_base(self, z):
        return -0.5 * (z**2).sum(dim=1) - 0.5 * self.dim * math.log(2 * math.pi)

    def forward(self, x):
        log_det_total = torch.zeros(x.shape[0], device=x.device)
        z = x
        for layer in self.layers:
            z, log_det = layer(z)
            log_det_total = log_det_total + log_det
        return z, self.log_prob_base(z) + log_det_total
