# spec: {"model": "hf_mlp_assert.py:GatedMLP", "init": {"args": [16]}, "inputs": [{"tensor": [2, 3, 16]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedMLP(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, 2 * hidden_size)
        self.up_proj = nn.Linear(hidden_size, 2 * hidden_size)
        self.down_proj = nn.Linear(2 * hidden_size, hidden_size)

    def forward(self, x):
        h = F.silu(self.gate_proj(x)) * self.up_proj(x)
        assert torch.isfinite(h).all(), "non-finite activations"
        return self.down_proj(h)
