# spec: {"model": "aug_random_choice_scale.py:MultiScaleTrainer", "init": {"args": [3, 8]}, "inputs": [{"tensor": [2, 3, 32, 32]}], "mode": "train"}
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiScaleTrainer(nn.Module):
    """YOLO-style multi-scale training: each training batch is resized to a randomly chosen size."""

    def __init__(self, in_ch, width, scales=(24, 28, 32)):
        super().__init__()
        self.scales = list(scales)
        self.backbone = nn.Sequential(nn.Conv2d(in_ch, width, 3, 2, 1), nn.SiLU(), nn.Conv2d(width, width, 3, 2, 1))
        self.head = nn.Linear(width, 4)

    def forward(self, images):
        if self.training:
            size = random.choice(self.scales)
            images = F.interpolate(images, size=(size, size), mode="bilinear", align_corners=False)
        feats = self.backbone(images)
        return self.head(feats.mean((2, 3)))
