# spec: {"model": "kornia_aug_train.py:AugmentedClassifier", "inputs": [{"tensor": [4, 3, 16, 16], "init": "rand"}], "mode": "train"}
import kornia.augmentation as K
import torch
from torch import nn


class AugmentedClassifier(nn.Module):
    """GPU augmentation with kornia inside the model's forward, as kornia's tutorials show."""

    def __init__(self, n_classes=5):
        super().__init__()
        self.aug = nn.Sequential(K.RandomHorizontalFlip(p=0.5), K.ColorJitter(0.2, 0.2, 0.2, 0.05, p=0.8))
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, n_classes)

    def forward(self, images):
        if self.training:
            images = self.aug(images)
        return self.fc(self.body(images))
