# spec: {"model": "np_topk_argsort_rerank.py:Reranker", "inputs": [{"tensor": [10, 16]}]}
import numpy as np
import torch
from torch import nn


class Reranker(nn.Module):
    """Retrieval re-ranking: scores ordered with NumPy, the top candidates re-scored."""

    def __init__(self, dim=16, keep=4):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.rescore = nn.Linear(dim, 1)
        self.keep = keep

    def forward(self, cands):
        scores = self.score(cands).squeeze(-1)
        order = np.argsort(-scores.detach().cpu().numpy())
        top = torch.from_numpy(order[: self.keep].copy()).to(cands.device)
        return self.rescore(cands[top]).squeeze(-1) + scores[top]
