# spec: {"model": "serve_lock_shape_counts.py:ThreadSafeRanker", "init": {"args": [12]}, "inputs": [{"tensor": [6, 12]}]}
import threading
from collections import Counter

import torch
import torch.nn as nn


class ThreadSafeRanker(nn.Module):
    """Ranker behind a threaded HTTP server; batch-size histogram updated under a lock."""

    def __init__(self, dim):
        super().__init__()
        self.score = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 1))
        self._lock = threading.Lock()
        self.batch_sizes = Counter()

    def forward(self, feats):
        scores = self.score(feats).squeeze(-1)
        with self._lock:
            self.batch_sizes[feats.shape[0]] += 1
        return scores.softmax(0)
