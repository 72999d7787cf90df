# spec: {"model": "moe_sorted_offsets_loop.py:OffsetsMoE", "init": {"args": [8, 4]}, "inputs": [{"tensor": [10, 8], "init": "randn"}]}
import torch
from torch import nn


class OffsetsMoE(nn.Module):
    """Top-1 MoE over tokens sorted by expert with `torch.sort`, walked with running offsets
    read from the per-expert counts by `.tolist()` (reference loops of grouped-GEMM kernels:
    the slice `start:start + n` of the sorted rows is each expert's), scattered back."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, 4 * dim), nn.ReLU(), nn.Linear(4 * dim, dim)) for _ in range(num_experts)]
        )

    def forward(self, x):
        logits = self.router(x)
        gate, expert_idx = logits.softmax(-1).max(-1)
        _, order = torch.sort(expert_idx)
        x_sorted = x[order]
        counts = torch.bincount(expert_idx, minlength=self.num_experts).tolist()
        y_sorted = torch.zeros_like(x_sorted)
        start = 0
        for e, n in enumerate(counts):
            if n == 0:
                continue
            y_sorted[start : start + n] = self.experts[e](x_sorted[start : start + n])
            start += n
        y = torch.zeros_like(y_sorted).index_copy(0, order, y_sorted)
        return y * gate[:, None]
