# spec: {"model": "s4_hf_cache_position_arange.py:DecoderLayer", "init": {"args": [16]}, "inputs": [{"tensor": [1, 1, 16]}, 0], "variants": [{"inputs": [{"tensor": [1, 1, 16]}, 5]}, {"inputs": [{"tensor": [1, 1, 16]}, 6]}, {"inputs": [{"tensor": [1, 1, 16]}, 7]}]}
import torch
from torch import nn


class DecoderLayer(nn.Module):
    """A decoder layer stepped by `generate`, fed the number of cached tokens as an int."""

    def __init__(self, hidden_size, max_position_embeddings=64):
        super().__init__()
        self.embed_positions = nn.Embedding(max_position_embeddings, hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 4 * hidden_size), nn.SiLU(), nn.Linear(4 * hidden_size, hidden_size))

    def forward(self, hidden_states, past_seen_tokens):
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + hidden_states.shape[1])
        position_ids = cache_position.unsqueeze(0)
        hidden_states = hidden_states + self.embed_positions(position_ids)
        return hidden_states + self.mlp(hidden_states)
