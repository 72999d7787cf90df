# spec: {"model": "metric_batch_hard_triplet_loop.py:BatchHardTripletNet", "init": {"args": [32, 16]}, "inputs": [{"tensor": [12, 32]}, {"tensor": [12], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
import torch.nn.functional as F
from torch import nn


class BatchHardTripletNet(nn.Module):
    """Person re-ID embedding trained with the batch-hard triplet loss (Hermans et al.), mined anchor by anchor."""

    def __init__(self, in_dim, emb_dim, margin=0.3):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, emb_dim))
        self.margin = margin

    def forward(self, x, labels):
        emb = F.normalize(self.embed(x), dim=1)
        dist = torch.cdist(emb, emb)
        losses = []
        for i in range(emb.size(0)):
            pos = dist[i][labels == labels[i]]
            neg = dist[i][labels != labels[i]]
            if len(neg) == 0:
                continue
            losses.append(F.relu(pos.max() - neg.min() + self.margin))
        loss = torch.stack(losses).mean()
        return loss, emb
