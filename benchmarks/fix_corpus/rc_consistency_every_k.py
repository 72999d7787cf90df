# spec: {"model": "rc_consistency_every_k.py:SemiSupervisedHead", "init": {"args": [10, 4]}, "inputs": [{"tensor": [6, 10]}, {"tensor": [6, 10]}], "calls": 5, "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class SemiSupervisedHead(nn.Module):
    """A FixMatch/mean-teacher-like head: both views are encoded every call, the consistency
    term joins the loss every `cons_every` calls, with an `else` keeping the plain term."""

    def __init__(self, dim, classes, cons_every=3, weight=0.5):
        super().__init__()
        self.enc = nn.Linear(dim, classes)
        self.cons_every = cons_every
        self.weight = weight
        self.num_calls = 0

    def forward(self, weak, strong):
        p_weak = self.enc(weak).softmax(-1)
        p_strong = self.enc(strong).log_softmax(-1)
        entropy = -(p_weak * p_weak.clamp_min(1e-6).log()).sum(-1).mean()
        self.num_calls += 1
        if self.num_calls % self.cons_every == 0:
            cons = F.kl_div(p_strong, p_weak.detach(), reduction="batchmean")
            total = entropy + self.weight * cons
            scale = 1.0 + self.weight
        else:
            total = entropy
            scale = 1.0
        return total / scale
