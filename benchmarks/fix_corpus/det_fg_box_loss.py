# spec: {"model": "det_fg_box_loss.py:RoIBoxHeadLoss", "init": {"args": [16, 5]}, "inputs": [{"tensor": [32, 16]}, {"tensor": [32], "dtype": "int64", "init": "randint", "low": 0, "high": 5}, {"tensor": [32, 4]}]}
import torch
import torch.nn.functional as F
from torch import nn


class RoIBoxHeadLoss(nn.Module):
    """Fast R-CNN box head losses: classification on all RoIs, smooth-L1 regression on foreground RoIs only (torchvision roi_heads style)."""

    def __init__(self, in_dim, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(in_dim, num_classes)
        self.bbox_pred = nn.Linear(in_dim, 4)

    def forward(self, box_features, labels, regression_targets):
        class_logits = self.cls_score(box_features)
        box_regression = self.bbox_pred(box_features)
        classification_loss = F.cross_entropy(class_logits, labels)
        pos = labels > 0
        box_loss = F.smooth_l1_loss(box_regression, regression_targets, beta=1 / 9, reduction="none")
        fg_loss = box_loss[pos]
        box_loss = fg_loss.sum(0).sum() / labels.numel()
        return classification_loss, box_loss
