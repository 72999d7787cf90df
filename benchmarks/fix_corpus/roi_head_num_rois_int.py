# spec: {"model": "roi_head_num_rois_int.py:CascadeRoIHead", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 8, 12, 12]}, {"tensor": [2], "dtype": "int64", "data": [5, 3]}]}
import torch
import torch.nn as nn


class CascadeRoIHead(nn.Module):
    """RoI head where each image contributes a variable number of proposals (padding buffer sized by the batch max)."""

    def __init__(self, channels, num_classes, pool=3):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(pool)
        self.fc = nn.Linear(channels * pool * pool, num_classes)

    def forward(self, features, num_rois):
        max_rois = int(num_rois.max())
        total = int(num_rois.sum())
        rois = features.new_zeros(features.size(0), max_rois, features.size(1), 3, 3)
        for i in range(features.size(0)):
            n = int(num_rois[i])
            crops = [self.pool(features[i, :, j : j + 6, j : j + 6]) for j in range(n)]
            rois[i, :n] = torch.stack(crops)
        logits = self.fc(rois.flatten(2))
        return logits, total
