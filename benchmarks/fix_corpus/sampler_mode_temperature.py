# spec: {"model": "sampler_mode_temperature.py:TokenSampler", "init": {"args": [32, 64]}, "inputs": [{"tensor": [2, 32]}, "sample", 0.7], "variants": [{"inputs": [{"tensor": [2, 32]}, "sample", 1.0]}, {"inputs": [{"tensor": [2, 32]}, "greedy", 1.0]}, {"inputs": [{"tensor": [2, 32]}, "sample", 1.3]}]}
import torch
from torch import nn


class TokenSampler(nn.Module):
    """An LM head whose decoding strategy and temperature are passed per call, as generation configs do."""

    def __init__(self, dim, vocab):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, hidden, strategy, temperature):
        logits = self.lm_head(hidden)
        if strategy == "greedy":
            return logits.argmax(-1), logits
        scaled = logits / temperature
        gumbel = -torch.log(-torch.log(torch.rand_like(scaled).clamp_min(1e-9)))
        return (scaled + gumbel).argmax(-1), scaled
