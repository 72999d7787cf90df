# spec: {"model": "cnt_ramp_helper_method.py:ConsistencyLoss", "init": {"args": [6]}, "inputs": [{"tensor": [3, 6]}], "calls": 4, "mode": "train"}
import torch
from torch import nn


class ConsistencyLoss(nn.Module):
    """Mean-teacher style consistency weight ramped up over the iterations; the ramp is a
    helper method reading the iteration count kept on the module."""

    def __init__(self, dim, warmup_iters=3, max_weight=2.0):
        super().__init__()
        self.student = nn.Linear(dim, dim)
        self.teacher = nn.Linear(dim, dim)
        self.warmup = warmup_iters
        self.max_weight = max_weight
        self.it = 0

    def ramp(self):
        return self.max_weight * min(1.0, self.it / self.warmup)

    def forward(self, x):
        s = self.student(x)
        with torch.no_grad():
            t = self.teacher(x)
        if self.training:
            self.it += 1
        weight = self.ramp()
        return s, weight * (s - t).pow(2).mean()
