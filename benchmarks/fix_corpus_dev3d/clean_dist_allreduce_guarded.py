# spec: {"model": "clean_dist_allreduce_guarded.py:SyncBatchStats", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}]}
import torch.distributed as dist
from torch import nn


class SyncBatchStats(nn.Module):
    """Batch statistics synchronised across ranks when running distributed (SimSiam/BYOL
    code); single-process runs skip the all-reduce."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        mean = h.mean(0)
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(mean)
            mean = mean / dist.get_world_size()
        return h - mean
