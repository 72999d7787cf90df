# spec: {"model": "moe_top2_flat_sorted_split.py:Top2SortedMoE", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 5, 16], "init": "randn"}]}
import torch
import torch.nn.functional as F
from torch import nn


class ExpertFFN(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


class Top2SortedMoE(nn.Module):
    """Top-2 routing with flattened (token, k) expert ids (OpenMoE / research-repo style): every
    token is repeated k times, the copies are sorted by expert id and split by the per-expert
    counts, then un-sorted with the inverse permutation and combined with the top-k weights."""

    def __init__(self, dim, num_experts, top_k=2):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList([ExpertFFN(dim, 2 * dim) for _ in range(num_experts)])

    def forward(self, hidden):
        b, t, d = hidden.shape
        x = hidden.view(-1, d)
        probs = self.gate(x).softmax(dim=-1)
        topw, topi = probs.topk(self.top_k, dim=-1)
        topw = topw / topw.sum(dim=-1, keepdim=True)
        flat_ids = topi.reshape(-1)
        x_rep = x.repeat_interleave(self.top_k, dim=0)
        order = torch.argsort(flat_ids)
        x_sorted = x_rep[order]
        counts = torch.bincount(flat_ids, minlength=self.num_experts)
        outs = []
        for e, chunk in enumerate(torch.split(x_sorted, counts.tolist(), dim=0)):
            outs.append(self.experts[e](chunk))
        y_sorted = torch.cat(outs, dim=0)
        y = y_sorted[order.argsort()]
        y = (y.view(-1, self.top_k, d) * topw.unsqueeze(-1)).sum(dim=1)
        return y.view(b, t, d)
