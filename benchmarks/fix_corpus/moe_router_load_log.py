# spec: {"model": "moe_router_load_log.py:TopOneRouter", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 5, 16]}], "calls": 3}
import torch
from torch import nn


class TopOneRouter(nn.Module):
    """A Switch-style top-1 router that keeps per-call expert load for a balance plot."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_experts)])
        self.num_experts = num_experts
        self.load_history = []

    def forward(self, x):
        probs = self.gate(x).softmax(-1)
        weight, choice = probs.max(-1)
        onehot = nn.functional.one_hot(choice, self.num_experts).to(x.dtype)
        self.load_history.append(onehot.sum(dim=(0, 1)).tolist())
        out = torch.stack([e(x) for e in self.experts], dim=-1)
        return (out * onehot.unsqueeze(-2)).sum(-1) * weight.unsqueeze(-1)
