# spec: {"model": "moe_expert_split_apply.py:SortedMoE", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 5, 8], "init": "randn"}]}
import torch
from torch import nn


class SortedMoE(nn.Module):
    """A top-1 MoE layer that sorts the tokens by expert and splits them with the expert
    counts read by `.tolist()` (megablocks / fairseq style): each expert runs on its own chunk
    and the chunks are concatenated back, so the chunk sizes are the data's."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))

    def forward(self, x):
        tokens = x.reshape(-1, x.shape[-1])
        expert = self.router(tokens).argmax(dim=-1)
        order = expert.argsort()
        counts = torch.bincount(expert, minlength=self.num_experts)
        chunks = tokens[order].split(counts.tolist())
        out = torch.cat([e(c) for e, c in zip(self.experts, chunks)])
        return torch.empty_like(out).index_copy_(0, order, out).reshape(x.shape)
