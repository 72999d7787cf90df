# spec: {"model": "yolo_pos_rows_cols_loss.py:YoloRowLoss", "inputs": [{"tensor": [12, 16]}, {"tensor": [12, 5], "init": "rand"}]}
import torch
from torch import nn


class YoloRowLoss(nn.Module):
    """A YOLO-style head loss: box regression on the first four columns of positive rows,
    objectness logit in column 4 (ultralytics/yolov5 loss layout)."""

    def __init__(self, dim=16, ncols=5):
        super().__init__()
        self.head = nn.Linear(dim, ncols)

    def forward(self, feats, targets):
        pred = self.head(feats)
        pos = targets[:, 4] > 0.5
        lbox = (pred[pos, :4] - targets[pos, :4]).abs().sum()
        lobj = pred[pos, 4].sigmoid().sum()
        return pred, lbox + lobj
