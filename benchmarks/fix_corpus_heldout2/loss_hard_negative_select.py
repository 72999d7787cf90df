# spec: {"model": "loss_hard_negative_select.py:HardNegativeTriplet", "inputs": [{"tensor": [8, 16]}, {"tensor": [8], "dtype": "int64", "data": [0, 0, 1, 1, 2, 2, 3, 3]}]}
import torch
import torch.nn.functional as F
from torch import nn


class HardNegativeTriplet(nn.Module):
    """Triplet loss over hard negatives picked with masked_select (metric-learning repo style)."""

    def __init__(self, margin=0.2):
        super().__init__()
        self.margin = margin

    def forward(self, emb, labels):
        emb = F.normalize(emb, dim=-1)
        sim = emb @ emb.T
        same = labels[:, None] == labels[None, :]
        pos = (sim - 2.0 * (~same).float()).masked_fill(torch.eye(len(labels), dtype=torch.bool), -2).amax(1)
        hard = torch.masked_select(sim, ~same & (sim > pos[:, None] - self.margin))
        return F.relu(hard - pos.mean() + self.margin).mean()
