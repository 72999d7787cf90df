# spec: {"model": "c4_moe_dense_topk.py:SparseMoeBlock", "init": {"args": [16, 32], "kwargs": {"num_experts": 4, "top_k": 2}}, "inputs": [{"tensor": [2, 5, 16]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class ExpertMLP(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.w1 = nn.Linear(hidden, ffn, bias=False)
        self.w2 = nn.Linear(ffn, hidden, bias=False)
        self.w3 = nn.Linear(hidden, ffn, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoeBlock(nn.Module):
    """Mixtral's sparse MoE block in its compile-friendly dense form: every expert runs on every
    token and the top-k routing weights (zero elsewhere) are scattered into a dense matrix; the
    expert loop is over ``range(self.num_experts)``."""

    def __init__(self, hidden, ffn, num_experts=8, top_k=2, norm_topk_prob=True):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.norm_topk_prob = norm_topk_prob
        self.gate = nn.Linear(hidden, num_experts, bias=False)
        self.experts = nn.ModuleList([ExpertMLP(hidden, ffn) for _ in range(num_experts)])

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        if self.norm_topk_prob:
            routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        dense = torch.zeros_like(router_logits).scatter(1, selected_experts, routing_weights)
        final_hidden_states = torch.zeros_like(hidden_states)
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            final_hidden_states = final_hidden_states + expert_layer(hidden_states) * dense[:, expert_idx, None]
        final_hidden_states = final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)
        return final_hidden_states, router_logits
