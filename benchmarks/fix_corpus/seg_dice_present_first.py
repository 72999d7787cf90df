# spec: {"model": "seg_dice_present_first.py:DicePresentFirst", "init": {"args": [8, 5]}, "inputs": [{"tensor": [2, 8, 16, 16]}, {"tensor": [2, 16, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


class DicePresentFirst(nn.Module):
    """Soft Dice over the classes present in the target, the classes found first, the
    per-class Dice computed after (one-hot, sums over the spatial dims)."""

    def __init__(self, in_ch, num_classes, smooth=1e-5):
        super().__init__()
        self.head = nn.Conv2d(in_ch, num_classes, 1)
        self.num_classes = num_classes
        self.smooth = smooth

    def forward(self, feats, target):
        present = torch.unique(target)
        probs = self.head(feats).softmax(dim=1)
        onehot = F.one_hot(target, self.num_classes).permute(0, 3, 1, 2).float()
        dims = (0, 2, 3)
        inter = (probs * onehot).sum(dim=dims)
        union = probs.sum(dim=dims) + onehot.sum(dim=dims)
        dice = (2.0 * inter + self.smooth) / (union + self.smooth)
        return 1.0 - dice[present].mean()
