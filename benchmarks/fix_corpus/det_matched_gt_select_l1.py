# spec: {"model": "det_matched_gt_select_l1.py:MatchedBoxLoss", "inputs": [{"tensor": [16, 8], "init": "randn"}, {"tensor": [5, 4], "init": "rand"}, {"tensor": [16, 5], "init": "rand"}], "mode": "train"}
import torch
from torch import nn


class MatchedBoxLoss(nn.Module):
    """SSD / torchvision `Matcher` flavour: each anchor is matched to its best ground-truth box,
    the matches above the IoU threshold are kept, and the matched boxes are read through the
    kept match indices (`matched_idxs[good]`)."""

    def __init__(self, dim=8, iou_thresh=0.5):
        super().__init__()
        self.reg = nn.Linear(dim, 4)
        self.iou_thresh = iou_thresh

    def forward(self, feats, gt_boxes, ious):
        pred = self.reg(feats)
        max_iou, matched_idxs = ious.max(dim=1)
        good = max_iou > self.iou_thresh
        pos_gt = matched_idxs[good]
        target = gt_boxes[pos_gt]
        diff = (pred[good] - target).abs()
        return diff.sum() / good.sum().clamp(min=1)
