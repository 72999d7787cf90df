# spec: {"model": "train_freeze_bn_epoch_attr.py:FinetuneNet", "init": {"args": [4]}, "inputs": [{"tensor": [4, 3, 16, 16]}], "mode": "train", "calls": 3}
import torch
from torch import nn


class FinetuneNet(nn.Module):
    """Fine-tuning CNN that counts its own forward passes and freezes BatchNorm statistics after a warm-up."""

    def __init__(self, num_classes, freeze_bn_after=1):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32, num_classes)
        self.freeze_bn_after = freeze_bn_after
        self.num_steps = 0

    def freeze_bn(self):
        for m in self.backbone.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()

    def forward(self, x):
        if self.training and self.num_steps >= self.freeze_bn_after:
            self.freeze_bn()
        self.num_steps += 1
        return self.fc(self.backbone(x).flatten(1))
