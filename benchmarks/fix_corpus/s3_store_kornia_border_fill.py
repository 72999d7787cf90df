# spec: {"model": "s3_store_kornia_border_fill.py:BorderFill", "init": {"args": [3]}, "inputs": [{"tensor": [2, 3, 16, 16]}]}
import torch
from torch import nn


class BorderFill(nn.Module):
    """Kornia-style augmentation that replaces the image border by the image mean before a
    convolution (the mean read once with `float()`, the border rows and columns stored one by one)."""

    def __init__(self, channels, width=2):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.width = width

    def forward(self, img):
        out = img.clone()
        fill = float(img.mean())
        w = self.width
        out[..., :w, :] = fill
        out[..., -w:, :] = fill
        out[..., :, :w] = fill
        out[..., :, -w:] = fill
        return self.conv(out)
