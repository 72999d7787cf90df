# spec: {"model": "rc_ema_update_every.py:EMATeacher", "init": {"args": [12, 4]}, "inputs": [{"tensor": [4, 12]}], "calls": 5}
import torch
from torch import nn


class EMATeacher(nn.Module):
    """A mean-teacher / BYOL-style momentum head: the decay follows the warm-up schedule of
    timm's ModelEmaV2 (`min(decay, (1 + n) / (10 + n))`), applied every `update_every` calls."""

    def __init__(self, dim, out, decay=0.999, update_every=2):
        super().__init__()
        self.student = nn.Linear(dim, out)
        self.register_buffer("teacher_w", torch.zeros(out, dim))
        self.decay = decay
        self.update_every = update_every
        self.num_updates = 0

    def forward(self, x):
        self.num_updates += 1
        d = min(self.decay, (1 + self.num_updates) / (10 + self.num_updates))
        if self.num_updates % self.update_every == 0:
            with torch.no_grad():
                self.teacher_w.mul_(d).add_((1 - d) * self.student.weight)
        return self.student(x), x @ self.teacher_w.t()
