# spec: {"model": "lp_heappush_pop_topk.py:RetrievalReranker", "init": {"args": [8]}, "inputs": [{"tensor": [8]}, {"tensor": [15, 8]}]}
import heapq

import torch
from torch import nn


class RetrievalReranker(nn.Module):
    """Dense retrieval top-k with a bounded min-heap (heappush / heappop over the scores read
    with .item()), the kept passages returned in score order."""

    def __init__(self, dim, k=3):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = k

    def forward(self, query, passages):
        scores = passages @ self.q(query)
        heap = []
        for i, s in enumerate(scores):
            heapq.heappush(heap, (s.item(), i))
            if len(heap) > self.k:
                heapq.heappop(heap)
        order = [i for _, i in sorted(heap, reverse=True)]
        return passages[order], scores[order]
