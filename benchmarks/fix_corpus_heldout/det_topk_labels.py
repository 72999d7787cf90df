# spec: {"model": "det_topk_labels.py:TopKCaptionHead", "init": {"args": [32, 20]}, "inputs": [{"tensor": [2, 32]}]}
import torch
from torch import nn


class TopKCaptionHead(nn.Module):
    """A tagging head that returns the top-k tag ids per image as Python lists (demo-app style)."""

    def __init__(self, dim, num_tags, k=3):
        super().__init__()
        self.proj = nn.Linear(dim, num_tags)
        self.k = k

    def forward(self, feats):
        logits = self.proj(feats)
        top = logits.topk(self.k, dim=-1)
        tag_ids = top.indices.tolist()
        emb = torch.zeros_like(logits)
        for row, ids in enumerate(tag_ids):
            for j in ids:
                emb[row, j] = 1.0
        return logits, emb
