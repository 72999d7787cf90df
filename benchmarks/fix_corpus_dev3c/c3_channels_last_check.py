# spec: {"model": "c3_channels_last_check.py:LayerNorm2d", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 6, 6]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class LayerNorm2d(nn.LayerNorm):
    """ConvNeXt's channels-first LayerNorm, with a contiguity check picking the permute path."""

    def forward(self, x):
        if x.is_contiguous(memory_format=torch.channels_last):
            x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias, self.eps)
            return x.permute(0, 3, 1, 2)
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return x * self.weight[:, None, None] + self.bias[:, None, None]
