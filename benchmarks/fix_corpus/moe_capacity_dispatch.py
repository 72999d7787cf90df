# spec: {"model": "moe_capacity_dispatch.py:CapacityMoE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 8, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class CapacityMoE(nn.Module):
    """Switch-Transformer top-1 routing with an expert capacity; overflowing tokens pass through unchanged."""

    def __init__(self, dim, n_experts, capacity_factor=1.0):
        super().__init__()
        self.router = nn.Linear(dim, n_experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n_experts)])
        self.capacity_factor = capacity_factor

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(-1, d)
        probs = F.softmax(self.router(tokens), dim=-1)
        gate, expert = probs.max(dim=-1)
        capacity = int(self.capacity_factor * tokens.shape[0] / len(self.experts))
        out = tokens.clone()
        for e, layer in enumerate(self.experts):
            idx = torch.nonzero(expert == e, as_tuple=True)[0][:capacity]
            out[idx] = layer(tokens[idx]) * gate[idx, None]
        return out.reshape(b, t, d)
