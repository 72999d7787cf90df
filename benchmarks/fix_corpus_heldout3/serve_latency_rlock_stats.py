# spec: {"model": "serve_latency_rlock_stats.py:BatchedClassifier", "init": {"args": [16, 5]}, "inputs": [{"tensor": [8, 16]}]}
import threading
import time

import torch
from torch import nn


class BatchedClassifier(nn.Module):
    """A classifier shared by server worker threads; per-call latency and batch size go to shared stats."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, num_classes))
        self._stats_lock = threading.RLock()
        self.stats = {"calls": 0, "rows": 0, "seconds": 0.0}

    def forward(self, x):
        t0 = time.perf_counter()
        out = self.net(x).softmax(-1)
        with self._stats_lock:
            self.stats["calls"] += 1
            self.stats["rows"] += x.shape[0]
            self.stats["seconds"] += time.perf_counter() - t0
        return out
