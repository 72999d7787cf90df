# spec: {"model": "rc_sampling_temperature.py:NextTokenHead", "init": {"args": [16, 40]}, "inputs": [{"tensor": [2, 16]}], "kwargs": {"temperature": 0.7, "top_k": 5}, "variants": [{"inputs": [{"tensor": [2, 16]}], "kwargs": {"temperature": 1.0, "top_k": 5}}, {"inputs": [{"tensor": [2, 16]}], "kwargs": {"temperature": 1.3, "top_k": 5}}, {"inputs": [{"tensor": [2, 16]}], "kwargs": {"temperature": 0.9, "top_k": 8}}]}
import torch
from torch import nn


class NextTokenHead(nn.Module):
    """LM head + nanoGPT-style `generate` logits processing: temperature and top-k come in
    as Python numbers from the caller."""

    def __init__(self, dim, vocab):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, h, temperature=1.0, top_k=None):
        logits = self.lm_head(h) / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, top_k)
            logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
        return logits.softmax(-1)
