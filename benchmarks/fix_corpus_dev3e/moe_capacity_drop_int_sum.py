# spec: {"model": "moe_capacity_drop_int_sum.py:CapacityRouter", "init": {"args": [8, 4, 1.0]}, "inputs": [{"tensor": [2, 8, 8]}]}
import math

import torch
from torch import nn
from torch.nn import functional as F


class CapacityRouter(nn.Module):
    """Switch-Transformer top-1 router with expert capacity: tokens past an expert's capacity are
    dropped; the router keeps a running overflow count as a Python int for its logs."""

    def __init__(self, dim, num_experts, capacity_factor):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))
        self.num_experts = num_experts
        self.capacity_factor = capacity_factor
        self.overflow_tokens = 0

    def forward(self, hidden):
        b, s, d = hidden.shape
        tokens = hidden.reshape(-1, d)
        capacity = math.ceil(tokens.size(0) / self.num_experts * self.capacity_factor)
        probs = self.gate(tokens).softmax(-1)
        top_p, top_e = probs.max(-1)
        mask = F.one_hot(top_e, self.num_experts)
        position = torch.cumsum(mask, dim=0) * mask
        keep = (position <= capacity) & (mask > 0)
        self.overflow_tokens += sum(mask.sum(0)) - int(keep.sum())
        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            out = out + keep[:, e : e + 1] * expert(tokens)
        return (out * top_p.unsqueeze(-1)).view(b, s, d)
