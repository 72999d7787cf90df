# spec: {"model": "lib_kornia_aug_container.py:AugmentedStem", "inputs": [{"tensor": [2, 3, 32, 32], "init": "rand"}], "mode": "train"}
import kornia.augmentation as K
import torch
from torch import nn


class AugmentedStem(nn.Module):
    """GPU augmentation inside the model (kornia's AugmentationSequential on self), then a stem."""

    def __init__(self):
        super().__init__()
        self.aug = K.AugmentationSequential(
            K.RandomHorizontalFlip(p=0.5),
            K.ColorJiggle(0.1, 0.1, 0.1, 0.05, p=0.5),
            K.Normalize(mean=torch.tensor([0.5, 0.5, 0.5]), std=torch.tensor([0.25, 0.25, 0.25])),
        )
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, images):
        images = self.aug(images)
        feats = self.stem(images)
        return feats.relu().mean(dim=(2, 3))
