# spec: {"model": "timm_se_resnet.py:SEBottleneck", "init": {"args": [16]}, "inputs": [{"tensor": [2, 16, 8, 8]}]}
import torch
import torch.nn.functional as F
from torch import nn


class SEModule(nn.Module):
    def __init__(self, channels, rd_ratio=1.0 / 16, min_channels=8):
        super().__init__()
        rd_channels = max(int(channels * rd_ratio), min_channels)
        self.fc1 = nn.Conv2d(channels, rd_channels, 1)
        self.fc2 = nn.Conv2d(rd_channels, channels, 1)

    def forward(self, x):
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.fc2(F.relu(self.fc1(x_se)))
        return x * x_se.sigmoid()


class SEBottleneck(nn.Module):
    def __init__(self, channels, drop_path_rate=0.0):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels // 2, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels // 2)
        self.conv2 = nn.Conv2d(channels // 2, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.se = SEModule(channels)
        self.drop_path_rate = drop_path_rate

    def forward(self, x):
        shortcut = x
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.se(self.bn2(self.conv2(x)))
        gate = float(x.mean().sigmoid())
        x = x * gate
        assert torch.isfinite(x).all(), f"non-finite activations in {type(self).__name__}"
        return F.relu(x + shortcut)
