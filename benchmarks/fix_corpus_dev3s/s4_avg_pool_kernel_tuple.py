# spec: {"model": "s4_avg_pool_kernel_tuple.py:PoolHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 12, 12]}], "kwargs": {"kernel_size": {"tuple": [3, 3]}}, "variants": [{"inputs": [{"tensor": [2, 8, 12, 12]}], "kwargs": {"kernel_size": {"tuple": [2, 2]}}}]}
import torch.nn.functional as F
from torch import nn


class PoolHead(nn.Module):
    """A detection head pooling its features with a caller-chosen `kernel_size` tuple."""

    def __init__(self, channels):
        super().__init__()
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, feats, kernel_size=(3, 3)):
        feats = self.proj(feats)
        pooled = F.avg_pool2d(feats, kernel_size=kernel_size, stride=kernel_size)
        return pooled.flatten(1)
