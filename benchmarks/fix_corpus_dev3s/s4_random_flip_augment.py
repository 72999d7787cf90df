# spec: {"model": "s4_random_flip_augment.py:AugmentedEncoder", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}], "calls": 4, "mode": "train"}
import random

import torch
from torch import nn


class AugmentedEncoder(nn.Module):
    """GPU-side augmentation in forward: a horizontal flip drawn with Python's `random`."""

    def __init__(self, channels, flip_p=0.5):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.flip_p = flip_p

    def forward(self, images):
        if self.training and random.random() < self.flip_p:
            images = torch.flip(images, dims=[-1])
        return self.conv(images).mean((2, 3))
