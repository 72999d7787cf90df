# spec: {"model": "c4_kornia_augment_eval.py:AugmentedEncoder", "init": {"args": [3, 8]}, "inputs": [{"tensor": [2, 3, 16, 16]}], "calls": 3}
import kornia.augmentation as K
import torch
from torch import nn


class AugmentedEncoder(nn.Module):
    """A SimCLR-style encoder with a kornia GPU augmentation pipeline applied only in training
    (``if self.training``), normalisation always."""

    def __init__(self, in_ch, dim):
        super().__init__()
        self.augment = nn.Sequential(K.RandomHorizontalFlip(), K.ColorJitter(0.2, 0.2, 0.2, 0.1, p=0.8))
        self.normalize = K.Normalize(mean=torch.tensor([0.485, 0.456, 0.406]), std=torch.tensor([0.229, 0.224, 0.225]))
        self.backbone = nn.Sequential(nn.Conv2d(in_ch, dim, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        if self.training:
            x = self.augment(x)
        x = self.normalize(x)
        return self.backbone(x)
