# spec: {"model": "cnt_step_decay_dropout.py:DecayedTokenMix", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "calls": 5, "mode": "train"}
import torch
from torch import nn


class DecayedTokenMix(nn.Module):
    """A timm-like block whose residual scale decays in steps (halved every `every` calls),
    the step count kept on the block."""

    def __init__(self, dim, base=1.0, every=2):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.base = base
        self.every = every
        self.register_buffer("bias", torch.zeros(dim))
        self.it = 0

    def forward(self, x):
        if self.training:
            self.it += 1
        gamma = self.base * 0.5 ** (self.it // self.every)
        return x + gamma * self.mlp(self.norm(x)) + self.bias
