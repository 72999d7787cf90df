# spec: {"model": "ema_swa_n_averaged.py:SWAWrapped", "init": {"args": [10, 3]}, "inputs": [{"tensor": [4, 10]}], "mode": "train", "calls": 4}
import copy

import torch
import torch.nn as nn


class SWAWrapped(nn.Module):
    """Stochastic weight averaging kept inside the module: the running average is updated every forward."""

    def __init__(self, dim, n_cls):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, n_cls))
        self.averaged = copy.deepcopy(self.model)
        for p in self.averaged.parameters():
            p.requires_grad_(False)
        self.n_averaged = 0

    @torch.no_grad()
    def update_average(self):
        for p_avg, p in zip(self.averaged.parameters(), self.model.parameters()):
            p_avg.copy_(p_avg + (p - p_avg) / (self.n_averaged + 1))
        self.n_averaged += 1

    def forward(self, x):
        out = self.model(x)
        if self.training:
            self.update_average()
        return out, self.averaged(x)
