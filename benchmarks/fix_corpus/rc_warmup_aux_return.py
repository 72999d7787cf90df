# spec: {"model": "rc_warmup_aux_return.py:SegWithAux", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8, 6, 6]}], "calls": 5, "mode": "train"}
import torch
from torch import nn


class SegWithAux(nn.Module):
    """An mmseg-like head whose auxiliary branch joins the output only after `warmup_iters`
    calls (the counter is bumped in forward, as in many training-time heads)."""

    def __init__(self, ch, num_classes, warmup_iters=2):
        super().__init__()
        self.cls = nn.Conv2d(ch, num_classes, 1)
        self.aux = nn.Conv2d(ch, num_classes, 3, padding=1)
        self.warmup_iters = warmup_iters
        self.iteration = 0

    def forward(self, feats):
        out = self.cls(feats)
        self.iteration += 1
        if self.iteration > self.warmup_iters:
            aux = self.aux(feats)
            out = out + 0.4 * aux
        return out
