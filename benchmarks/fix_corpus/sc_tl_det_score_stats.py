# spec: {"model": "sc_tl_det_score_stats.py:ScoreStatsHead", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 20, 16]}]}
import torch
from torch import nn


class ScoreStatsHead(nn.Module):
    """Detection score calibration: mean and spread of the scores read at once
    (`torch.std_mean(...)` stacked and `.tolist()`), scores below mean - spread floored."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.cls_logits = nn.Linear(dim, num_classes)

    def forward(self, feats):
        scores = self.cls_logits(feats).sigmoid()
        std, mean = torch.std_mean(scores.detach())
        mu, sigma = torch.stack([mean, std]).tolist()
        floor = mu - sigma
        scores = torch.where(scores < floor, torch.zeros_like(scores), scores)
        return scores.sum(dim=1) / (sigma + 1e-6)
