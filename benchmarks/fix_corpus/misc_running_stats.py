# spec: {"model": "misc_running_stats.py:RunningNorm", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}], "calls": 3}
import torch
from torch import nn


class RunningNorm(nn.Module):
    """Observation normalisation with running statistics, as RL code bases keep it."""

    def __init__(self, dim, clip=5.0, eps=1e-8):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.count = eps
        self.clip = clip

    def update(self, x):
        batch_mean = x.mean(0)
        batch_var = x.var(0, unbiased=False)
        batch_count = x.shape[0]
        delta = batch_mean - self.mean
        tot = self.count + batch_count
        self.mean += delta * batch_count / tot
        m2 = self.var * self.count + batch_var * batch_count + delta.pow(2) * self.count * batch_count / tot
        self.var.copy_(m2 / tot)
        self.count = tot

    def forward(self, x):
        if self.training:
            self.update(x)
        worst = x.abs().max().item()
        if worst > 1e3:
            print(f"large observation {worst:.1f}")
        return torch.clamp((x - self.mean) / torch.sqrt(self.var + 1e-8), -self.clip, self.clip)
