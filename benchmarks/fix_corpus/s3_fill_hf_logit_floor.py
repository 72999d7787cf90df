# spec: {"model": "s3_fill_hf_logit_floor.py:TopKLogitsWarper", "init": {"args": [16, 40]}, "inputs": [{"tensor": [2, 16]}]}
import torch
from torch import nn


class TopKLogitsWarper(nn.Module):
    """Transformers-style logits warper: tokens outside the top k get the lowest logit minus a
    margin (read with `.item()`, a fill of `torch.full_like`) instead of -inf."""

    def __init__(self, dim, vocab, top_k=5):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)
        self.top_k = top_k

    def forward(self, hidden):
        scores = self.lm_head(hidden)
        kth = torch.topk(scores, self.top_k, dim=-1).values[..., -1:]
        floor_value = scores.min().item() - 10.0
        filler = torch.full_like(scores, floor_value)
        scores = torch.where(scores < kth, filler, scores)
        return scores.log_softmax(-1)
