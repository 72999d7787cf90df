# spec: {"model": "ps_rand_hflip_else.py:AugmentedClassifier", "init": {"args": [10]}, "inputs": [{"tensor": [2, 3, 16, 16]}], "mode": "train", "calls": 4}
import random

import torch
from torch import nn


class AugmentedClassifier(nn.Module):
    """Image classifier with a GPU-side horizontal flip drawn with Python's random (if/else form, kornia-like p)."""

    def __init__(self, n_classes, p_flip=0.5):
        super().__init__()
        self.p_flip = p_flip
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, n_classes)

    def forward(self, img):
        if random.random() < self.p_flip:
            x = img.flip(-1)
        else:
            x = img
        return self.fc(self.features(x))
