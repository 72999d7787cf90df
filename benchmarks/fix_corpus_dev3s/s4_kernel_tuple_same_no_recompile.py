# spec: {"model": "s4_kernel_tuple_same_no_recompile.py:BlurPool", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 12, 12]}], "kwargs": {"kernel_size": {"tuple": [3, 3]}}, "variants": [{"inputs": [{"tensor": [2, 4, 12, 12], "init": "rand"}], "kwargs": {"kernel_size": {"tuple": [3, 3]}}}]}
import torch.nn.functional as F
from torch import nn


class BlurPool(nn.Module):
    """Anti-aliased downsampling; every call passes the same `kernel_size` tuple."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)

    def forward(self, x, kernel_size=(2, 2)):
        x = self.conv(x)
        return F.avg_pool2d(x, kernel_size=kernel_size, stride=2, padding=1)
