# spec: {"model": "r3_sched_submodule_counter.py:Denoiser", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3}
import torch
from torch import nn


class StepScheduler(nn.Module):
    def __init__(self, n=10):
        super().__init__()
        self.step_index = 0
        self.sigmas = [1.0 - i / n for i in range(n + 1)]

    def step(self, x, eps):
        sigma = self.sigmas[self.step_index]
        sigma_next = self.sigmas[self.step_index + 1]
        self.step_index += 1
        return x + (sigma_next - sigma) * eps


class Denoiser(nn.Module):
    """A denoiser that advances a scheduler submodule's step_index on every call."""

    def __init__(self, dim):
        super().__init__()
        self.eps = nn.Linear(dim, dim)
        self.scheduler = StepScheduler()

    def forward(self, x):
        return self.scheduler.step(x, self.eps(x))
