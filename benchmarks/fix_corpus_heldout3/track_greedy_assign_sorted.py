# spec: {"model": "track_greedy_assign_sorted.py:TrackAssociator", "init": {"args": [16]}, "inputs": [{"tensor": [5, 16]}, {"tensor": [4, 16]}, {"tensor": [5], "init": "rand"}]}
import torch
import torch.nn.functional as F
from torch import nn


class TrackAssociator(nn.Module):
    """Appearance-embedding tracker (DeepSORT habit): detections, best score first, claim their nearest free track."""

    def __init__(self, dim, min_sim=0.0):
        super().__init__()
        self.reid = nn.Linear(dim, dim)
        self.min_sim = min_sim

    def forward(self, det_feats, track_feats, det_scores):
        sim = F.normalize(self.reid(det_feats), dim=-1) @ F.normalize(self.reid(track_feats), dim=-1).T
        order = sorted(range(det_feats.shape[0]), key=lambda i: det_scores[i], reverse=True)
        assignment = torch.full((det_feats.shape[0],), -1, dtype=torch.long)
        taken = torch.zeros(track_feats.shape[0], dtype=torch.bool)
        for i in order:
            cand = sim[i].masked_fill(taken, -2.0)
            j = cand.argmax()
            assignment[i] = torch.where(cand[j] > self.min_sim, j, -1)
            taken[j] = taken[j] | (cand[j] > self.min_sim)
        return assignment, sim
