# spec: {"model": "s3_cut_rpn_pre_nms_top_n.py:ProposalWeights", "init": {"args": [16]}, "inputs": [{"tensor": [30, 16]}]}
import torch
from torch import nn


class ProposalWeights(nn.Module):
    """torchvision-RPN-like pre-NMS selection: proposals are ranked with `argsort`, the number
    kept is how many clear the objectness threshold (`int()`, at least one), and only those keep
    their score in the pooled box."""

    def __init__(self, dim, thresh=0.5):
        super().__init__()
        self.objectness = nn.Linear(dim, 1)
        self.box = nn.Linear(dim, 4)
        self.thresh = thresh

    def forward(self, feats):
        scores = self.objectness(feats).squeeze(-1).sigmoid()
        boxes = self.box(feats)
        order = scores.argsort(descending=True)
        n = max(int((scores > self.thresh).sum()), 1)
        top = order[:n]
        weights = torch.zeros_like(scores)
        weights[top] = scores[top]
        return (weights[:, None] * boxes).sum(0) / weights.sum()
