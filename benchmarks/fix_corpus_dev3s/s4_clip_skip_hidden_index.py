# spec: {"model": "s4_clip_skip_hidden_index.py:TextEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"clip_skip": 1}, "variants": [{"inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"clip_skip": 2}}]}
from torch import nn


class TextEncoder(nn.Module):
    """Stable-diffusion prompt encoding that takes the hidden state `clip_skip` layers from the end."""

    def __init__(self, dim, num_layers=4):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_layers)])
        self.final_layer_norm = nn.LayerNorm(dim)

    def forward(self, embeds, clip_skip=1):
        hidden_states = [embeds]
        for layer in self.layers:
            hidden_states.append(layer(hidden_states[-1]).tanh())
        return self.final_layer_norm(hidden_states[-clip_skip])
