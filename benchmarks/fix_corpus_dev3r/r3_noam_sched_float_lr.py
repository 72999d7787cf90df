# spec: {"model": "r3_noam_sched_float_lr.py:ScheduledHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 4}
import torch
from torch import nn


class ScheduledHead(nn.Module):
    """A head that scales its output by a Noam-style warmup factor kept as a Python float."""

    def __init__(self, dim, warmup=4000):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.warmup = warmup
        self.num_updates = 0
        self.factor = 0.0

    def forward(self, x):
        self.num_updates += 1
        step = self.num_updates
        self.factor = min(step ** -0.5, step * self.warmup ** -1.5)
        return self.proj(x) * self.factor
