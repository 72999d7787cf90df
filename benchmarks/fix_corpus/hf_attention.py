# spec: {"model": "hf_attention.py:SelfAttention", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 6, 16]}]}
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class SelfAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, hidden_states):
        q = self.split(self.query(hidden_states))
        k = self.split(self.key(hidden_states))
        v = self.split(self.value(hidden_states))
        scores = q @ k.transpose(-1, -2) / self.head_dim**0.5
        logger.debug("attention scores max %s", scores.max())
        probs = scores.softmax(-1)
        out = (probs @ v).transpose(1, 2).reshape(hidden_states.shape)
        return out
