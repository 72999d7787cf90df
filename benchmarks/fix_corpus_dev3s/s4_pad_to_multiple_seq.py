# spec: {"model": "s4_pad_to_multiple_seq.py:LocalAttentionPadder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8, 8]}], "variants": [{"inputs": [{"tensor": [2, 10, 8]}]}, {"inputs": [{"tensor": [2, 13, 8]}]}]}
import torch.nn.functional as F
from torch import nn


class LocalAttentionPadder(nn.Module):
    """Longformer-style: pads the sequence to a multiple of the attention window."""

    def __init__(self, dim, attention_window=4):
        super().__init__()
        self.attention_window = attention_window
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden_states):
        seq_len = hidden_states.shape[1]
        padding_len = (self.attention_window - seq_len % self.attention_window) % self.attention_window
        if padding_len > 0:
            hidden_states = F.pad(hidden_states, (0, 0, 0, padding_len))
        blocks = hidden_states.view(hidden_states.shape[0], -1, self.attention_window, hidden_states.shape[-1])
        return self.proj(blocks.mean(2))
