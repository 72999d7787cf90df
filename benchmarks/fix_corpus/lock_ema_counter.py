# spec: {"model": "lock_ema_counter.py:ThreadSafeEMA", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "mode": "train", "calls": 3}
import threading

import torch
from torch import nn


class ThreadSafeEMA(nn.Module):
    """A normaliser whose running mean is updated under a lock (served from several threads)."""

    def __init__(self, dim, momentum=0.1):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(dim))
        self.momentum = momentum
        self._lock = threading.Lock()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        if self.training:
            with self._lock:
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0).detach())
        return self.proj(x - self.running_mean)
