"""Logits processor in the style of a text-generation sampler (temperature, top-k)."""

import torch
from torch import nn


class LogitsWarper(nn.Module):
    def __init__(self, vocab: int = 64) -> None:
        super().__init__()
        self.proj = nn.Linear(32, vocab)

    def forward(self, hidden: torch.Tensor, temperature: float = 1.0, top_k: int = 0):
        logits = self.proj(hidden)
        if temperature != 1.0:
            logits = logits / temperature
        if top_k > 0:
            kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return torch.softmax(logits, dim=-1)
