# spec: {"model": "s4_global_step_counter.py:Student", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 3}
import torch
from torch import nn

_GLOBAL_STEP = 0
WARMUP_STEPS = 100


class Student(nn.Module):
    """A distillation student whose loss weight ramps with a module-level step counter."""

    def __init__(self, dim):
        super().__init__()
        self.net = nn.Linear(dim, dim)

    def forward(self, x):
        global _GLOBAL_STEP
        _GLOBAL_STEP += 1
        ramp = min(1.0, _GLOBAL_STEP / WARMUP_STEPS)
        return torch.relu(self.net(x)) * ramp
