# spec: {"model": "s4_past_key_values_grow.py:GPTAttention", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}, {"tuple": [{"tensor": [1, 3, 16]}, {"tensor": [1, 3, 16]}]}], "variants": [{"inputs": [{"tensor": [1, 1, 16]}, {"tuple": [{"tensor": [1, 4, 16]}, {"tensor": [1, 4, 16]}]}]}, {"inputs": [{"tensor": [1, 1, 16]}, {"tuple": [{"tensor": [1, 5, 16]}, {"tensor": [1, 5, 16]}]}]}]}
import torch
from torch import nn


class GPTAttention(nn.Module):
    """GPT-2 style attention taking `layer_past` as a (key, value) tuple that grows per step."""

    def __init__(self, embed_dim):
        super().__init__()
        self.c_attn = nn.Linear(embed_dim, 3 * embed_dim)
        self.c_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, hidden_states, layer_past):
        query, key, value = self.c_attn(hidden_states).split(hidden_states.size(-1), dim=2)
        past_key, past_value = layer_past
        key = torch.cat((past_key, key), dim=-2)
        value = torch.cat((past_value, value), dim=-2)
        attn = torch.softmax(query @ key.transpose(-1, -2) / key.size(-1) ** 0.5, dim=-1)
        present = (key, value)
        return self.c_proj(attn @ value), present
