# spec: {"model": "kornia_canny_edge_density.py:EdgeAwareHead", "inputs": [{"tensor": [2, 3, 32, 32], "init": "rand"}]}
import kornia
import torch
from torch import nn


class EdgeAwareHead(nn.Module):
    """Document-layout classifier that adds a Canny edge-density channel (kornia) to the RGB input."""

    def __init__(self, num_classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, images):
        _, edges = kornia.filters.canny(images, low_threshold=0.1, high_threshold=0.2)
        x = torch.cat([images, edges], dim=1)
        return self.fc(self.body(x).flatten(1))
