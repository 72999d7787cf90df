# spec: {"model": "cnt_warmup_if_branch.py:DistillHead", "init": {"args": [10, 5]}, "inputs": [{"tensor": [4, 10]}, {"tensor": [4, 5]}], "calls": 4, "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class DistillHead(nn.Module):
    """A distillation head (DeiT / detectron-style loss module) that ramps the distillation
    weight linearly during the first `warmup` steps it is called."""

    def __init__(self, dim, num_classes, warmup=3, alpha=0.5):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)
        self.alpha = alpha
        self.warmup = warmup
        self.steps = 0

    def forward(self, x, teacher_logits):
        logits = self.head(x)
        w = self.alpha
        if self.steps < self.warmup:
            w = w * (self.steps + 1) / self.warmup
        self.steps += 1
        kd = F.kl_div(logits.log_softmax(-1), teacher_logits.softmax(-1), reduction="batchmean")
        return logits, w * kd
