# spec: {"model": "rerank_sorted_range_topk.py:Reranker", "inputs": [{"tensor": [8, 6]}]}
import torch
from torch import nn


class Reranker(nn.Module):
    """Retrieval re-ranking: candidate indices sorted by score with Python `sorted` over a
    range, the top ones gathered (sentence-transformers/rerank scripts style)."""

    def __init__(self, dim=6, k=3):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.k = k

    def forward(self, cands):
        scores = self.score(cands).squeeze(-1)
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
        top = cands[order[: self.k]]
        return top, scores
