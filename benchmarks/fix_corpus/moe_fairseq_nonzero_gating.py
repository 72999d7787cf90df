# spec: {"model": "moe_fairseq_nonzero_gating.py:Top2MoE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 7, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return self.net(x)


class Top2MoE(nn.Module):
    """fairseq/DeepSpeed-style top-2 gating: the first and second choices' gates normalised,
    tokens gathered per expert with `nonzero`, scattered back with `index_add_`."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.wg = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList([FeedForward(dim) for _ in range(num_experts)])

    def forward(self, x):
        shape = x.shape
        tokens = x.reshape(-1, shape[-1])
        gates = F.softmax(self.wg(tokens), dim=1)
        gates2, indices = gates.topk(2, dim=1)
        gates2 = gates2 / gates2.sum(dim=1, keepdim=True).clamp(min=1e-9)
        out = torch.zeros_like(tokens)
        for e in range(self.num_experts):
            for slot in range(2):
                rows = (indices[:, slot] == e).nonzero(as_tuple=True)[0]
                if rows.numel() == 0:
                    continue
                y = self.experts[e](tokens[rows])
                out.index_add_(0, rows, y * gates2[rows, slot].unsqueeze(1))
        return out.reshape(shape)
