# spec: {"model": "sc_det_score_floor_fill.py:ScoreFloorHead", "init": {"args": [16, 5]}, "inputs": [{"tensor": [2, 30, 16]}]}
import torch
from torch import nn


class ScoreFloorHead(nn.Module):
    """Detection-head post-processing (mmdet-like): scores below an adaptive threshold are
    filled with the lowest score, the threshold taken from the batch statistics."""

    def __init__(self, dim, num_classes, k=0.5):
        super().__init__()
        self.cls_score = nn.Linear(dim, num_classes)
        self.k = k

    def forward(self, feats):
        scores = self.cls_score(feats).sigmoid()
        mean = scores.mean().item()
        std = scores.std().item()
        thr = mean + self.k * std
        floor = scores.min().item()
        keep = scores >= thr
        scores = scores.masked_fill(~keep, floor)
        return scores.amax(dim=1)
