# spec: {"model": "r3_topk_ratio_int.py:TokenPrune", "init": {"args": [8]}, "inputs": [{"tensor": [2, 10, 8]}], "kwargs": {"keep_ratio": 0.5}, "variants": [{"inputs": [{"tensor": [2, 10, 8]}], "kwargs": {"keep_ratio": 0.7}}, {"inputs": [{"tensor": [2, 10, 8]}], "kwargs": {"keep_ratio": 0.3}}]}
import torch
from torch import nn


class TokenPrune(nn.Module):
    """DynamicViT-style pruning keeping int(N * keep_ratio) tokens."""

    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x, keep_ratio=0.5):
        n_keep = max(1, int(x.shape[1] * keep_ratio))
        s = self.score(x).squeeze(-1)
        idx = s.topk(n_keep, dim=1).indices
        return torch.gather(x, 1, idx[..., None].expand(-1, -1, x.shape[-1]))
