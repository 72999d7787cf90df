# spec: {"model": "lp_sorted_tolist_topk_mean.py:TopKPoolHead", "init": {"args": [8]}, "inputs": [{"tensor": [20, 8]}]}
import torch
from torch import nn


class TopKPoolHead(nn.Module):
    """Multiple-instance pooling (MIL top-k): instance scores sorted as a Python list, the k
    largest averaged, the result turned back into a tensor."""

    def __init__(self, dim, k=5):
        super().__init__()
        self.inst = nn.Linear(dim, 1)
        self.k = k

    def forward(self, bag):
        scores = self.inst(bag).squeeze(-1)
        ranked = sorted(scores.tolist(), reverse=True)
        top = ranked[: self.k]
        return scores.mean() * 0 + torch.tensor(sum(top) / len(top))
