# spec: {"model": "sc_sched_cosine_tensor_step.py:CosineGate", "init": {"args": [10]}, "inputs": [{"tensor": [4, 10]}, {"tensor": [], "data": [37.0]}]}
import math

import torch
from torch import nn


class CosineGate(nn.Module):
    """Training-schedule gate (a timm scheduler inlined in the model): the step arrives as a
    tensor, the cosine factor scales and bounds the activations."""

    def __init__(self, dim, total=100, gamma=2.0):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.total = total
        self.gamma = gamma

    def forward(self, x, step):
        progress = min(float(step) / self.total, 1.0)
        factor = 0.5 * (1.0 + math.cos(math.pi * progress))
        h = self.fc(x) * factor ** self.gamma
        h = h.clamp(max=factor + 0.5)
        return torch.pow(h.abs() + 1.0, factor).mean(-1)
