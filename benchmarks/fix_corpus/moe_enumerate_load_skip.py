# spec: {"model": "moe_enumerate_load_skip.py:SparseMoE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [8, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class SparseMoE(nn.Module):
    """A research-repo top-1 MoE: the per-expert load as a list in the loop header, empty
    experts skipped, each expert's tokens found with one-argument `torch.where`."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(
            [
                nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
                for _ in range(num_experts)
            ]
        )

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, expert_idx = probs.max(dim=-1)
        load = torch.bincount(expert_idx, minlength=self.num_experts)
        out = torch.zeros_like(x)
        for e, n in enumerate(load.tolist()):
            if n == 0:
                continue
            rows = torch.where(expert_idx == e)[0]
            out.index_add_(0, rows, self.experts[e](x[rows]) * gate[rows, None])
        return out
