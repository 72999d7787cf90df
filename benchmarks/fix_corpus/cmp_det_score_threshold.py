# spec: {"model": "cmp_det_score_threshold.py:ScoreGateHead", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 20, 16]}]}
import torch
from torch import nn


class ScoreGateHead(nn.Module):
    """Detection head post-processing: when the best score of the image is under a threshold, boxes are zeroed."""

    def __init__(self, dim, num_classes, score_thresh=0.9):
        super().__init__()
        self.cls = nn.Linear(dim, num_classes)
        self.reg = nn.Linear(dim, 4)
        self.score_thresh = score_thresh

    def forward(self, feats):
        scores = self.cls(feats).sigmoid()
        boxes = self.reg(feats)
        best_score = scores.max().item()
        if best_score < self.score_thresh:
            boxes = torch.zeros_like(boxes)
            scores = scores * 0.0
        return boxes, scores
