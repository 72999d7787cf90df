# spec: {"model": "moe_expert_load_warn.py:SparseMoE", "inputs": [{"tensor": [12, 8], "init": "randn"}], "config": {"capture_scalar_outputs": true}}
import warnings

import torch
import torch.nn.functional as F
from torch import nn


class SparseMoE(nn.Module):
    """Top-1 mixture of experts dispatched by sorting tokens per expert (fairseq/Megablocks
    style loop over experts) in a project that sets `capture_scalar_outputs`, warning the per-expert
    load."""

    def __init__(self, dim=8, n_experts=4):
        super().__init__()
        self.n_experts = n_experts
        self.router = nn.Linear(dim, n_experts)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n_experts))

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, expert = probs.max(dim=-1)
        order = torch.argsort(expert, stable=True)
        load = F.one_hot(expert, self.n_experts).sum(0).tolist()
        warnings.warn(f"expert load {load}")
        chunks = x[order].split(load)
        outs = [self.experts[i](c) if c.shape[0] > 0 else c for i, c in enumerate(chunks)]
        y = torch.empty_like(x)
        y[order] = torch.cat(outs)
        return y * gate[:, None]
