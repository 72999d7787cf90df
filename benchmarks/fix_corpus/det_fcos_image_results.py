# spec: {"model": "det_fcos_image_results.py:FCOSPostProcess", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 6, 6]}]}
import torch
from torch import nn


class FCOSPostProcess(nn.Module):
    """FCOS-style heads with per-image post-processing: boxes above a score threshold, one tensor per image (kept for NMS)."""

    def __init__(self, ch, num_classes, score_thresh=0.5):
        super().__init__()
        self.cls = nn.Conv2d(ch, num_classes, 3, padding=1)
        self.reg = nn.Conv2d(ch, 4, 3, padding=1)
        self.score_thresh = score_thresh

    def forward(self, feats):
        scores = self.cls(feats).sigmoid().flatten(2).amax(1)
        boxes = self.reg(feats).relu().flatten(2).transpose(1, 2)
        results = []
        for i in range(feats.shape[0]):
            keep = scores[i] > self.score_thresh
            results.append(torch.cat([boxes[i][keep], scores[i][keep].unsqueeze(-1)], dim=-1))
        return results
