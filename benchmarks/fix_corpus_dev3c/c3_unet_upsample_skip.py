# spec: {"model": "c3_unet_upsample_skip.py:UNetDecoder", "init": {"args": [[16, 8, 4]]}, "inputs": [[{"tensor": [1, 16, 4, 4]}, {"tensor": [1, 8, 8, 8]}, {"tensor": [1, 4, 17, 17]}]], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class UpBlock(nn.Module):
    def __init__(self, in_ch, skip_ch):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(in_ch + skip_ch, skip_ch, 3, padding=1), nn.ReLU(inplace=True))

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        if x.shape[-2:] != skip.shape[-2:]:
            x = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
        return self.conv(torch.cat([x, skip], dim=1))


class UNetDecoder(nn.Module):
    """segmentation_models_pytorch-style decoder over an encoder's feature list."""

    def __init__(self, channels):
        super().__init__()
        self.blocks = nn.ModuleList(UpBlock(c_in, c_out) for c_in, c_out in zip(channels[:-1], channels[1:]))

    def forward(self, features):
        x = features[0]
        for block, skip in zip(self.blocks, features[1:]):
            x = block(x, skip)
        return x
