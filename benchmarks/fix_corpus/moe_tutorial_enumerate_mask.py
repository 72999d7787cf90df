# spec: {"model": "moe_tutorial_enumerate_mask.py:MoELayer", "init": {"args": [16, 6, 2]}, "inputs": [{"tensor": [4, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class MoELayer(nn.Module):
    """The blog-post MoE: noisy-free top-k gating, a loop over the experts that picks the
    tokens routed to each one with a boolean mask and skips experts that got none."""

    def __init__(self, dim, num_experts, k):
        super().__init__()
        self.k = k
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList([Expert(dim, 3 * dim) for _ in range(num_experts)])

    def forward(self, x):
        logits = self.router(x)
        top_vals, top_idx = logits.topk(self.k, dim=-1)
        gates = F.softmax(top_vals, dim=-1)
        out = torch.zeros_like(x)
        for i, expert in enumerate(self.experts):
            mask = (top_idx == i).any(dim=-1)
            if mask.any():
                w = (gates * (top_idx == i)).sum(dim=-1)
                out[mask] += expert(x[mask]) * w[mask].unsqueeze(-1)
        return out
