# spec: {"model": "r3_temperature_none_fill.py:Sampler", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [2, 8]}], "kwargs": {"temperature": 0.7}}, {"inputs": [{"tensor": [2, 8]}], "kwargs": {"temperature": 1.3}}]}
import torch
from torch import nn


class Sampler(nn.Module):
    """Logit scaling whose temperature falls back to the config's when None."""

    def __init__(self, dim):
        super().__init__()
        self.lm = nn.Linear(dim, 16)
        self.default_temperature = 1.0

    def forward(self, h, temperature=None):
        if temperature is None:
            temperature = self.default_temperature
        logits = self.lm(h) / temperature
        return logits.softmax(-1)
