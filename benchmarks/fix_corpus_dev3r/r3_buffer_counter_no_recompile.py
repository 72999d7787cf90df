# spec: {"model": "r3_buffer_counter_no_recompile.py:BatchNormish", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "mode": "train", "calls": 4}
import torch
from torch import nn


class BatchNormish(nn.Module):
    """Running statistics kept in buffers (tensors), as BatchNorm does: no Python state."""

    def __init__(self, dim):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(dim))
        self.register_buffer("num_batches", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        if self.training:
            self.num_batches += 1
            m = 1.0 / self.num_batches.float()
            self.running_mean.mul_(1 - m).add_(m * x.mean(0).detach())
        return x - self.running_mean
