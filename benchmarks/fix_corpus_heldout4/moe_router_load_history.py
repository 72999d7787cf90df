# spec: {"model": "moe_router_load_history.py:TopKRouterMoE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 6, 16]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class TopKRouterMoE(nn.Module):
    """Dense-dispatch top-2 MoE layer that keeps a history of per-expert load on the module for later plots."""

    def __init__(self, dim, num_experts, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(dim, 32), nn.GELU(), nn.Linear(32, dim)) for _ in range(num_experts))
        self.load_history = []

    def forward(self, x):
        logits = self.gate(x)
        weights, idx = logits.topk(self.k, dim=-1)
        weights = weights.softmax(-1)
        dispatch = F.one_hot(idx, logits.size(-1)).float()
        combine = (dispatch * weights[..., None]).sum(-2)
        self.load_history.append(dispatch.sum(dim=(0, 1, 2)).detach())
        expert_out = torch.stack([e(x) for e in self.experts], dim=-2)
        return (combine[..., None] * expert_out).sum(-2)
