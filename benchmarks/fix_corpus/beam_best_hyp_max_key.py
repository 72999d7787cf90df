# spec: {"model": "beam_best_hyp_max_key.py:NBestRescorer", "init": {"args": [16]}, "inputs": [{"tensor": [5, 7, 16]}, {"tensor": [5]}]}
import torch
from torch import nn


class NBestRescorer(nn.Module):
    """ASR n-best rescoring with a small LM; the best hypothesis is picked with max(key=...)."""

    def __init__(self, dim, lm_weight=0.3):
        super().__init__()
        self.lm = nn.TransformerEncoderLayer(dim, 2, 2 * dim, batch_first=True)
        self.score = nn.Linear(dim, 1)
        self.lm_weight = lm_weight

    def forward(self, hyp_embeddings, am_scores):
        out = self.lm(hyp_embeddings)
        lm_scores = self.score(out).squeeze(-1).sum(-1)
        total = am_scores + self.lm_weight * lm_scores
        best = max(range(len(total)), key=lambda i: total[i])
        return hyp_embeddings[best], total[best]
