# spec: {"model": "moe_megablocks_split_sizes.py:SortedDispatchMoE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 6, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class SortedDispatchMoE(nn.Module):
    """megablocks/st-moe reference style: tokens sorted by expert, split by the per-expert
    counts read back with `.tolist()`, each chunk through its expert, un-permuted."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Linear(2 * dim, dim)) for _ in range(num_experts)]
        )

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = F.softmax(self.router(x), dim=-1)
        weight, expert_idx = probs.max(dim=-1)
        order = expert_idx.argsort()
        x_sorted = x[order]
        tokens_per_expert = torch.bincount(expert_idx, minlength=self.num_experts)
        outs = []
        for e, chunk in enumerate(x_sorted.split(tokens_per_expert.tolist())):
            outs.append(self.experts[e](chunk))
        y_sorted = torch.cat(outs, dim=0)
        y = torch.empty_like(y_sorted)
        y[order] = y_sorted
        return (y * weight[:, None]).reshape(shape)
