# spec: {"model": "tv_normalize.py:Normalize", "inputs": [{"tensor": [2, 3, 8, 8]}]}
import math

import torch
from torch import nn


class Normalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, img):
        var = img.var()
        std = math.sqrt(var)
        img = (img - self.mean) / std
        return self.conv(img)
