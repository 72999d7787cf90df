# spec: {"model": "sampler_min_p_item_thresh.py:MinPSampler", "init": {"args": [100, 32]}, "inputs": [{"tensor": [1, 32]}]}
import torch
from torch import nn


class MinPSampler(nn.Module):
    """LM head plus min-p sampling (llama.cpp / text-generation-webui style) with the cut-off taken as a Python float."""

    def __init__(self, vocab, dim, min_p=0.1, temperature=0.8):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)
        self.min_p = min_p
        self.temperature = temperature

    def forward(self, hidden):
        logits = self.lm_head(hidden) / self.temperature
        probs = logits.softmax(-1)
        top_prob = probs.max().item()
        threshold = self.min_p * top_prob
        logits = logits.masked_fill(probs < threshold, float("-inf"))
        return torch.multinomial(logits.softmax(-1), num_samples=1)
