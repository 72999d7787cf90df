# spec: {"model": "det_kept_boxes_xy_sum.py:KeptCenterLoss", "inputs": [{"tensor": [10, 8]}, {"tensor": [10], "init": "rand"}]}
import torch
from torch import nn


class KeptCenterLoss(nn.Module):
    """A center-distance auxiliary loss on the boxes kept by score (detectron-like head):
    the kept rows are selected first, then their xy columns."""

    def __init__(self, dim=8, score_thresh=0.4):
        super().__init__()
        self.reg = nn.Linear(dim, 4)
        self.score_thresh = score_thresh

    def forward(self, feats, scores):
        boxes = self.reg(feats)
        keep = scores > self.score_thresh
        centers = boxes[keep][:, :2]
        aux = centers.abs().sum()
        return boxes, aux
