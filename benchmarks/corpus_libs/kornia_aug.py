"""kornia: random augmentations as modules in forward."""

import kornia.augmentation as K
import torch


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.flip = K.RandomHorizontalFlip(p=0.5)
        self.jitter = K.ColorJitter(0.2, 0.2, 0.2, 0.1, p=1.0)
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        x = self.flip(x)
        x = self.jitter(x)
        return self.conv(x)


def make():
    return Model().train(), (torch.rand(2, 3, 16, 16),)
