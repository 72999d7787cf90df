# spec: {"model": "aug_random_flip.py:AugmentedEncoder", "inputs": [{"tensor": [2, 3, 16, 16]}], "mode": "train", "calls": 3}
import random

import torch
from torch import nn


class AugmentedEncoder(nn.Module):
    """A small conv encoder that applies a random flip in training, SimCLR-tutorial style."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        if self.training and random.random() < self.p:
            x = torch.flip(x, dims=[-1])
        h = self.conv(x).mean(dim=(2, 3))
        return self.head(h)
