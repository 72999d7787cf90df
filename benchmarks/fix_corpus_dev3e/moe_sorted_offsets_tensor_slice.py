# spec: {"model": "moe_sorted_offsets_tensor_slice.py:SortedDispatchMoE", "init": {"args": [8, 4]}, "inputs": [{"tensor": [16, 8]}]}
import torch
from torch import nn


class SortedDispatchMoE(nn.Module):
    """Top-1 MoE that sorts tokens by expert and slices the sorted batch between the per-expert
    offsets (cumulative token counts, kept as a tensor)."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))
        self.num_experts = num_experts

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        weight, expert = probs.max(-1)
        order = expert.argsort()
        counts = torch.histc(expert.float(), bins=self.num_experts, min=0, max=self.num_experts - 1)
        offsets = counts.long().cumsum(0)
        x_sorted = x[order]
        out = torch.cat(
            [e(x_sorted[offsets[i] - counts.long()[i] : offsets[i]]) for i, e in enumerate(self.experts)]
        )
        return torch.empty_like(out).index_copy_(0, order, out) * weight.unsqueeze(-1)
