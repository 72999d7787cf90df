# spec: {"model": "seg_miou_present.py:SegmenterWithIoU", "init": {"args": [6, 5]}, "inputs": [{"tensor": [2, 6, 12, 12]}, {"tensor": [2, 12, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 4}]}
import torch
from torch import nn


class SegmenterWithIoU(nn.Module):
    """Segmenter whose forward returns the mean soft IoU over the classes seen in the labels."""

    def __init__(self, in_ch, num_classes):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(in_ch, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, num_classes, 1))

    def forward(self, x, labels):
        logits = self.conv(x)
        probs = torch.softmax(logits, dim=1)
        onehot = torch.nn.functional.one_hot(labels, logits.shape[1]).permute(0, 3, 1, 2).float()
        inter = (probs * onehot).sum(dim=(0, 2, 3))
        union = (probs + onehot - probs * onehot).sum(dim=(0, 2, 3))
        classes = labels.unique()
        iou = inter[classes] / union[classes].clamp(min=1e-6)
        return logits, iou.mean()
