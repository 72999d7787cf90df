# spec: {"model": "kd_equal_input_cache.py:CachedTeacherKD", "init": {"args": [12, 5]}, "inputs": [{"tensor": [4, 12]}], "calls": 2}
import torch
from torch import nn


class CachedTeacherKD(nn.Module):
    """Distillation that reuses the teacher's logits when the same batch comes again (a cache
    keyed by torch.equal on the inputs, as in some KD training loops)."""

    def __init__(self, dim, classes, tau=2.0):
        super().__init__()
        self.teacher = nn.Linear(dim, classes)
        self.student = nn.Linear(dim, classes)
        self.tau = tau
        self.cached_x = None
        self.cached_t = None

    def forward(self, x):
        if self.cached_x is not None and torch.equal(self.cached_x, x):
            t = self.cached_t
        else:
            t = self.teacher(x).detach()
            self.cached_x, self.cached_t = x.clone(), t
        s = self.student(x)
        return nn.functional.kl_div((s / self.tau).log_softmax(-1), (t / self.tau).softmax(-1), reduction="batchmean")
