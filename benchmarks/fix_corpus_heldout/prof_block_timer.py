# spec: {"model": "prof_block_timer.py:TimedResidualStack", "init": {"args": [16, 3]}, "inputs": [{"tensor": [4, 16]}]}
import time

import torch
from torch import nn


class TimedResidualStack(nn.Module):
    """Residual MLP blocks that record per-block wall time for a profiler table."""

    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList(
            [nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth)]
        )
        self.timings = [0.0] * depth

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            start = time.perf_counter()
            x = x + block(x)
            self.timings[i] = time.perf_counter() - start
        return x
