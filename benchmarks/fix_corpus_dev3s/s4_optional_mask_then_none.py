# spec: {"model": "s4_optional_mask_then_none.py:BertSelfAttention", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}, {"tensor": [2, 1, 1, 5]}], "variants": [{"inputs": [{"tensor": [2, 5, 8]}, null]}]}
import math
from typing import Optional

import torch
from torch import nn


class BertSelfAttention(nn.Module):
    """BERT self-attention with an extended attention mask that callers may leave out."""

    def __init__(self, hidden_size):
        super().__init__()
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states: torch.Tensor, attention_mask: Optional[torch.Tensor] = None):
        q, k, v = self.query(hidden_states), self.key(hidden_states), self.value(hidden_states)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1))
        if attention_mask is not None:
            scores = scores + attention_mask.squeeze(1)
        return torch.softmax(scores, dim=-1) @ v
