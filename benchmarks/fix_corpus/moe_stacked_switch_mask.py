# spec: {"model": "moe_stacked_switch_mask.py:StackedSwitchFFN", "init": {"args": [16, 4]}, "inputs": [{"tensor": [10, 16]}], "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class StackedSwitchFFN(nn.Module):
    """A from-scratch Switch FFN with the experts' weights in one tensor per layer (the
    `torch.bmm`-ready layout of many tutorials), dispatched eagerly: a boolean mask per expert,
    the rows written back into a fresh output."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts)
        self.w_in = nn.Parameter(torch.randn(num_experts, dim, 4 * dim) * dim**-0.5)
        self.b_in = nn.Parameter(torch.zeros(num_experts, 4 * dim))
        self.w_out = nn.Parameter(torch.randn(num_experts, 4 * dim, dim) * (4 * dim) ** -0.5)

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, route = probs.max(dim=-1)
        out = torch.zeros_like(x)
        for e in range(self.num_experts):
            mask = route == e
            h = F.gelu(x[mask] @ self.w_in[e] + self.b_in[e])
            out[mask] = (h @ self.w_out[e]) * gate[mask].unsqueeze(-1)
        return out
