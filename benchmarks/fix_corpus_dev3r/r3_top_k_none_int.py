# spec: {"model": "r3_top_k_none_int.py:TopKFilter", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [2, 8]}], "kwargs": {"top_k": 5}}, {"inputs": [{"tensor": [2, 8]}], "kwargs": {"top_k": 3}}]}
import torch
from torch import nn


class TopKFilter(nn.Module):
    """Top-k logit filtering where top_k=None means no filtering."""

    def __init__(self, dim):
        super().__init__()
        self.lm = nn.Linear(dim, 16)

    def forward(self, h, top_k=None):
        logits = self.lm(h)
        if top_k is not None:
            kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return logits.softmax(-1)
