# spec: {"model": "det_roi_fg_cls_head_ce.py:RoIClassifier", "init": {"args": [16, 6]}, "inputs": [{"tensor": [32, 16]}, {"tensor": [32], "dtype": "int64", "init": "randint", "low": 0, "high": 6}, {"tensor": [32]}]}
import torch.nn.functional as F
from torch import nn


class RoIClassifier(nn.Module):
    """A second-stage head (torchvision / mmdet roi_head style) classifying only the
    proposals whose IoU with a ground-truth box passes the threshold."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.shared_fcs = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.fc_cls = nn.Linear(32, num_classes)

    def forward(self, roi_feats, labels, ious):
        sampled = ious > 0.5
        feats = self.shared_fcs(roi_feats[sampled])
        cls_score = self.fc_cls(feats)
        return F.cross_entropy(cls_score, labels[sampled], reduction="sum") / 32
