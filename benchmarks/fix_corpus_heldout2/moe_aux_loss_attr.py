# spec: {"model": "moe_aux_loss_attr.py:TopKRouter", "init": {"args": [16, 8, 2]}, "inputs": [{"tensor": [2, 10, 16]}], "calls": 2}
import torch
import torch.nn.functional as F
from torch import nn


class TopKRouter(nn.Module):
    """A GShard-style router that keeps its load-balancing loss on the module for the trainer to log."""

    def __init__(self, dim, n_experts, k):
        super().__init__()
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.n_experts = n_experts
        self.k = k
        self.last_aux_loss = 0.0

    def forward(self, x):
        logits = self.gate(x)
        probs = logits.softmax(-1)
        weights, experts = probs.topk(self.k, dim=-1)
        load = F.one_hot(experts[..., 0], self.n_experts).float().mean(dim=(0, 1))
        importance = probs.mean(dim=(0, 1))
        aux = self.n_experts * (load * importance).sum()
        self.last_aux_loss = aux.item()
        return weights / weights.sum(-1, keepdim=True), experts, aux
