# spec: {"model": "moe_deepseek_v3_counts_skip.py:MoE", "init": {"args": [16, 6, 2]}, "inputs": [{"tensor": [2, 4, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, dim, inter_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, inter_dim)
        self.w2 = nn.Linear(inter_dim, dim)
        self.w3 = nn.Linear(dim, inter_dim)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Gate(nn.Module):
    def __init__(self, dim, n_experts, topk):
        super().__init__()
        self.topk = topk
        self.weight = nn.Parameter(torch.randn(n_experts, dim) * 0.02)

    def forward(self, x):
        scores = F.linear(x, self.weight).softmax(dim=-1)
        weights, indices = torch.topk(scores, self.topk, dim=-1)
        return weights.type_as(x), indices


class MoE(nn.Module):
    """DeepSeek-V3's public inference MoE (model.py): count the tokens per expert with
    `bincount(...).tolist()`, loop over the experts, skip the empty ones, pick each expert's
    (token, slot) pairs with `torch.where(indices == i)`."""

    def __init__(self, dim, n_routed_experts, n_activated_experts):
        super().__init__()
        self.dim = dim
        self.n_routed_experts = n_routed_experts
        self.gate = Gate(dim, n_routed_experts, n_activated_experts)
        self.experts = nn.ModuleList(
            [Expert(dim, 2 * dim) for _ in range(n_routed_experts)]
        )

    def forward(self, x):
        shape = x.size()
        x = x.view(-1, self.dim)
        weights, indices = self.gate(x)
        y = torch.zeros_like(x)
        counts = torch.bincount(indices.flatten(), minlength=self.n_routed_experts).tolist()
        for i in range(self.n_routed_experts):
            if counts[i] == 0:
                continue
            expert = self.experts[i]
            idx, top = torch.where(indices == i)
            y[idx] += expert(x[idx]) * weights[idx, top, None]
        return y.view(shape)
