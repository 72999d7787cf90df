# spec: {"model": "moe_hf5_experts_hit.py:SparseMoeBlock", "init": {"args": [16, 32, 4, 2]}, "inputs": [{"tensor": [2, 6, 16]}]}
import torch
import torch.nn.functional as F
from torch import nn


class Experts(nn.Module):
    """transformers 5's eager `MixtralExperts`: the experts' weights stored as 3-d tensors, a
    loop over the experts hit (`nonzero` of the per-expert token counts), (slot, token) pairs
    from `torch.where`, SwiGLU through one fused `gate_up_proj`."""

    def __init__(self, hidden, inter, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, 2 * inter, hidden) * 0.05)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden, inter) * 0.05)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states, top_k_index, top_k_weights):
        final_hidden_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = torch.nn.functional.one_hot(top_k_index, num_classes=self.num_experts + 1)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()

        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            if expert_idx == self.num_experts:
                continue
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[token_idx]
            gate, up = nn.functional.linear(current_state, self.gate_up_proj[expert_idx]).chunk(
                2, dim=-1
            )
            current_hidden_states = self.act_fn(gate) * up
            current_hidden_states = nn.functional.linear(
                current_hidden_states, self.down_proj[expert_idx]
            )
            current_hidden_states = (
                current_hidden_states * top_k_weights[token_idx, top_k_pos, None]
            )
            final_hidden_states.index_add_(
                0, token_idx, current_hidden_states.to(final_hidden_states.dtype)
            )

        return final_hidden_states


class TopKRouter(nn.Module):
    def __init__(self, hidden, num_experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.weight = nn.Parameter(torch.randn(num_experts, hidden) * 0.05)

    def forward(self, hidden_states):
        router_logits = F.linear(hidden_states, self.weight)
        router_probs = torch.nn.functional.softmax(router_logits.float(), dim=-1)
        router_top_value, router_indices = torch.topk(router_probs, self.top_k, dim=-1)
        router_top_value /= router_top_value.sum(dim=-1, keepdim=True)
        return router_logits, router_top_value, router_indices


class SparseMoeBlock(nn.Module):
    def __init__(self, hidden, inter, num_experts, top_k):
        super().__init__()
        self.gate = TopKRouter(hidden, num_experts, top_k)
        self.experts = Experts(hidden, inter, num_experts)

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        _, top_k_weights, top_k_index = self.gate(hidden_states)
        hidden_states = self.experts(hidden_states, top_k_index, top_k_weights)
        return hidden_states.reshape(batch_size, sequence_length, hidden_dim)
