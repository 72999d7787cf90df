# spec: {"model": "moe_deepseek_flat_topk.py:DeepseekMoE", "init": {"args": [16, 4, 2]}, "inputs": [{"tensor": [2, 5, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class DeepseekMLP(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DeepseekMoE(nn.Module):
    """DeepSeek-MoE style: top-k indices flattened, every token repeated k times, each
    expert run on `flat_topk_idx == i`, the k outputs weighted and summed per token."""

    def __init__(self, hidden, n_routed_experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(hidden, n_routed_experts, bias=False)
        self.experts = nn.ModuleList([DeepseekMLP(hidden, 2 * hidden) for _ in range(n_routed_experts)])

    def forward(self, hidden_states):
        orig_shape = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        scores = self.gate(hidden_states).softmax(dim=-1)
        topk_weight, topk_idx = torch.topk(scores, k=self.top_k, dim=-1, sorted=False)
        flat_topk_idx = topk_idx.view(-1)
        hidden_states = hidden_states.repeat_interleave(self.top_k, dim=0)
        y = torch.empty_like(hidden_states)
        for i, expert in enumerate(self.experts):
            y[flat_topk_idx == i] = expert(hidden_states[flat_topk_idx == i])
        y = (y.view(*topk_weight.shape, -1) * topk_weight.unsqueeze(-1)).sum(dim=1)
        return y.view(*orig_shape)
