# spec: {"model": "det_score_thresh_per_image.py:DenseDetectorPost", "init": {"kwargs": {"channels": 16, "num_classes": 5}}, "inputs": [{"tensor": [2, 16, 6, 6]}]}
import torch
import torch.nn as nn


class DenseDetectorPost(nn.Module):
    """Dense head plus the usual per-image score-threshold post-processing."""

    def __init__(self, channels, num_classes, score_thresh=0.3):
        super().__init__()
        self.cls_conv = nn.Conv2d(channels, num_classes, 3, padding=1)
        self.box_conv = nn.Conv2d(channels, 4, 3, padding=1)
        self.score_thresh = score_thresh

    def forward(self, feats):
        logits = self.cls_conv(feats).flatten(2).transpose(1, 2)
        deltas = self.box_conv(feats).flatten(2).transpose(1, 2)
        scores, labels = logits.sigmoid().max(dim=-1)
        results = []
        for img_scores, img_labels, img_boxes in zip(scores, labels, deltas):
            keep = img_scores > self.score_thresh
            results.append(
                {
                    "scores": img_scores[keep],
                    "labels": img_labels[keep],
                    "boxes": img_boxes[keep].exp(),
                }
            )
        return results
