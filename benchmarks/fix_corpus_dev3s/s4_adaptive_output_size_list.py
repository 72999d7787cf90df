# spec: {"model": "s4_adaptive_output_size_list.py:RoIHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 16, 16]}, [7, 7]], "variants": [{"inputs": [{"tensor": [2, 8, 16, 16]}, [4, 4]]}]}
import torch.nn.functional as F
from torch import nn


class RoIHead(nn.Module):
    """Pools each feature map to an `output_size` given as a list of two ints."""

    def __init__(self, channels):
        super().__init__()
        self.reduce = nn.Conv2d(channels, channels // 2, 1)

    def forward(self, feats, output_size):
        feats = self.reduce(feats)
        pooled = F.adaptive_avg_pool2d(feats, output_size)
        return pooled.flatten(1).relu()
