# spec: {"model": "lx_supcon_skip_no_positive.py:SupConHead", "init": {"args": [8]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6], "dtype": "int64", "data": [0, 1, 0, 2, 1, 3]}]}
import torch
import torch.nn.functional as F
from torch import nn


class SupConHead(nn.Module):
    """SupCon-style anchor loop: anchors without a positive pair in the batch are skipped."""

    def __init__(self, dim, temperature=0.1):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.temperature = temperature

    def forward(self, feats, labels):
        z = F.normalize(self.proj(feats), dim=-1)
        sim = z @ z.T / self.temperature
        n = z.shape[0]
        eye = torch.eye(n, dtype=torch.bool)
        loss, anchors = 0.0, 0
        for i in range(n):
            pos = (labels == labels[i]) & ~eye[i]
            num_pos = pos.sum()
            if num_pos == 0:
                continue
            logits = sim[i].masked_fill(eye[i], -1e9)
            log_prob = logits - torch.logsumexp(logits, dim=0)
            loss = loss - (log_prob * pos).sum() / num_pos
            anchors += 1
        return loss / max(anchors, 1)
