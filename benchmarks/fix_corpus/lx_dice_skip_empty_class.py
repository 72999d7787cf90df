# spec: {"model": "lx_dice_skip_empty_class.py:ClasswiseDiceLoss", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 10, 10]}, {"tensor": [2, 10, 10], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


class ClasswiseDiceLoss(nn.Module):
    """MONAI/segmentation-models style Dice: classes absent from the target are skipped."""

    def __init__(self, in_ch, num_classes, smooth=1.0):
        super().__init__()
        self.head = nn.Conv2d(in_ch, num_classes, 1)
        self.num_classes = num_classes
        self.smooth = smooth

    def forward(self, feats, target):
        probs = self.head(feats).softmax(dim=1)
        onehot = F.one_hot(target, self.num_classes).permute(0, 3, 1, 2).float()
        total = probs.new_zeros(())
        n_valid = 0
        for c in range(self.num_classes):
            tgt = onehot[:, c]
            if tgt.sum() == 0:
                continue
            p = probs[:, c]
            inter = (p * tgt).sum()
            dice = (2 * inter + self.smooth) / (p.sum() + tgt.sum() + self.smooth)
            total = total + (1 - dice)
            n_valid += 1
        return total / max(n_valid, 1)
