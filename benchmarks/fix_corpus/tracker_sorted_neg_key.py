# spec: {"model": "tracker_sorted_neg_key.py:TrackOrder", "inputs": [{"tensor": [5, 4]}]}
import torch
from torch import nn


class TrackOrder(nn.Module):
    """Multi-object tracker association: detections taken in order of decreasing confidence
    (`key=lambda k: -conf[k]`), their embeddings stacked in that order (ByteTrack-like)."""

    def __init__(self, dim=4):
        super().__init__()
        self.conf = nn.Linear(dim, 1)
        self.embed = nn.Linear(dim, dim)

    def forward(self, dets):
        conf = self.conf(dets).squeeze(1).sigmoid()
        emb = self.embed(dets)
        idx = sorted(range(conf.shape[0]), key=lambda k: -conf[k])
        ordered = torch.stack([emb[k] for k in idx])
        return ordered, conf
