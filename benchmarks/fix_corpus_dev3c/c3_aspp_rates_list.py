# spec: {"model": "c3_aspp_rates_list.py:ASPP", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 12, 12]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class ASPP(nn.Module):
    """DeepLabV3 atrous pyramid: dilation rates from a tensor turned into a list at init."""

    def __init__(self, in_channels, out_channels, atrous_rates=(1, 2, 3)):
        super().__init__()
        self.rates = torch.tensor(atrous_rates).tolist()
        self.convs = nn.ModuleList(
            nn.Conv2d(in_channels, out_channels, 3, padding=r, dilation=r, bias=False) for r in self.rates
        )
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(in_channels, out_channels, 1))
        self.project = nn.Conv2d(out_channels * (len(self.rates) + 1), out_channels, 1)

    def forward(self, x):
        size = x.shape[-2:]
        res = [conv(x) for conv in self.convs]
        res.append(F.interpolate(self.pool(x), size=size, mode="bilinear", align_corners=False))
        return self.project(torch.cat(res, dim=1))
