# spec: {"model": "tm_retrieval_ap_eval.py:DualEncoderScorer", "inputs": [{"tensor": [12, 16]}, {"tensor": [12], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
import torch
from torchmetrics.functional import retrieval as tmr
from torch import nn


class DualEncoderScorer(nn.Module):
    """A retrieval scorer that reports its batch average precision next to the score (sentence-transformers style)."""

    def __init__(self):
        super().__init__()
        self.query = nn.Linear(16, 32)
        self.doc = nn.Linear(16, 32)

    def forward(self, feats, relevant):
        scores = (self.query(feats) * self.doc(feats)).sum(-1)
        ap = tmr.retrieval_average_precision(scores, relevant.bool())
        return scores.sigmoid(), ap
