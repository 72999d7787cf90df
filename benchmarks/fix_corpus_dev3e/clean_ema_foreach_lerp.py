# spec: {"model": "clean_ema_foreach_lerp.py:StudentWithEMA", "init": {"args": [8, 3]}, "inputs": [{"tensor": [4, 8]}]}
import copy

import torch
from torch import nn


class StudentWithEMA(nn.Module):
    """Mean-teacher: the EMA teacher is updated inside forward with `torch._foreach_lerp_` under
    no_grad (the teacher built once in __init__)."""

    def __init__(self, dim, classes):
        super().__init__()
        self.student = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, classes))
        self.teacher = copy.deepcopy(self.student).requires_grad_(False)
        self.decay = 0.99

    def forward(self, x):
        with torch.no_grad():
            t_params = list(self.teacher.parameters())
            s_params = list(self.student.parameters())
            torch._foreach_lerp_(t_params, s_params, 1.0 - self.decay)
            target = self.teacher(x).softmax(-1)
        logits = self.student(x)
        return torch.sum(-target * logits.log_softmax(-1), dim=-1).mean()
