# spec: {"model": "det_where_keep_indices.py:RPNProposalFilter", "init": {"args": [8]}, "inputs": [{"tensor": [20, 8]}, {"tensor": [20, 4], "init": "rand"}]}
import torch
from torch import nn


class RPNProposalFilter(nn.Module):
    """Proposal filtering in an RPN head: keep the anchors whose objectness passes the
    threshold, found with single-argument torch.where."""

    def __init__(self, dim, score_thresh=0.5):
        super().__init__()
        self.obj = nn.Linear(dim, 1)
        self.score_thresh = score_thresh

    def forward(self, feats, boxes):
        scores = self.obj(feats).squeeze(1).sigmoid()
        keep = torch.where(scores > self.score_thresh)[0]
        return boxes[keep], scores[keep]
