# spec: {"model": "ema_teacher_deepcopy.py:MeanTeacher", "init": {"args": [12, 4]}, "inputs": [{"tensor": [4, 12]}], "mode": "train", "calls": 2}
import copy

import torch
from torch import nn


class MeanTeacher(nn.Module):
    """Mean-teacher consistency (semi-supervised scripts): the teacher is a deep copy of the
    student made on the first step and updated by EMA afterwards."""

    def __init__(self, dim, classes, decay=0.99):
        super().__init__()
        self.student = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, classes))
        self.teacher = None
        self.decay = decay

    def forward(self, x):
        if self.teacher is None:
            self.teacher = copy.deepcopy(self.student)
            for p in self.teacher.parameters():
                p.requires_grad_(False)
        with torch.no_grad():
            for pt, ps in zip(self.teacher.parameters(), self.student.parameters()):
                pt.mul_(self.decay).add_(ps, alpha=1 - self.decay)
            target = self.teacher(x).softmax(-1)
        return nn.functional.kl_div(self.student(x).log_softmax(-1), target, reduction="batchmean")
