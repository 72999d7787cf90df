# spec: {"model": "sampler_top_p_while.py:NucleusFilter", "init": {"args": [0.9]}, "inputs": [{"tensor": [32]}]}
import torch
from torch import nn


class NucleusFilter(nn.Module):
    """Top-p filtering of one logit vector, written as a loop over the sorted probabilities (tutorial style)."""

    def __init__(self, top_p):
        super().__init__()
        self.top_p = top_p

    def forward(self, logits):
        probs, order = logits.softmax(-1).sort(descending=True)
        keep = 0
        total = probs[0] * 0
        while total < self.top_p:
            total = total + probs[keep]
            keep += 1
        filtered = torch.full_like(logits, float("-inf"))
        filtered[order[:keep]] = logits[order[:keep]]
        return filtered
