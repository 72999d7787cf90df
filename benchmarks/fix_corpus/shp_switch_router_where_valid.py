# spec: {"model": "shp_switch_router_where_valid.py:SwitchRouterAuxLoss", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 6, 16]}, {"tensor": [2, 6], "dtype": "int64", "data": [[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class SwitchRouterAuxLoss(nn.Module):
    """Switch-Transformers top-1 router with the load-balancing loss taken over the real tokens only:
    the padding is dropped with the indices of one-argument ``torch.where`` on the flattened mask."""

    def __init__(self, hidden_size, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.classifier = nn.Linear(hidden_size, num_experts, bias=False)

    def forward(self, hidden_states, attention_mask):
        router_logits = self.classifier(hidden_states)
        router_probs = F.softmax(router_logits, dim=-1)
        expert_index = torch.argmax(router_probs, dim=-1)
        valid = torch.where(attention_mask.reshape(-1) > 0)[0]
        probs = router_probs.reshape(-1, self.num_experts)[valid]
        expert_mask = F.one_hot(expert_index.reshape(-1)[valid], self.num_experts).float()
        tokens_per_expert = expert_mask.mean(dim=0)
        router_prob_per_expert = probs.mean(dim=0)
        aux_loss = self.num_experts * torch.sum(tokens_per_expert * router_prob_per_expert)
        return router_probs, aux_loss
