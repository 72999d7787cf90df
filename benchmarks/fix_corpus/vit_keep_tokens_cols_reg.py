# spec: {"model": "vit_keep_tokens_cols_reg.py:TokenKeepReg", "inputs": [{"tensor": [2, 8, 16]}]}
import torch
from torch import nn


class TokenKeepReg(nn.Module):
    """Token pruning (DynamicViT/EViT style): tokens whose mean importance passes a threshold
    are kept across the batch; an L2 regularizer is taken on the kept tokens only."""

    def __init__(self, dim=16, thresh=0.0):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.proj = nn.Linear(dim, dim)
        self.thresh = thresh

    def forward(self, x):
        importance = self.score(x).squeeze(-1)  # [B, T]
        keep = importance.mean(0) > self.thresh  # [T]
        h = self.proj(x)
        kept = h[:, keep]
        reg = kept.pow(2).mean()
        return h, reg
