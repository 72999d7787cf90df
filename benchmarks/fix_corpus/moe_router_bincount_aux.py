# spec: {"model": "moe_router_bincount_aux.py:SwitchRouter", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 6, 16], "init": "randn"}]}
import torch
import torch.nn.functional as F
from torch import nn


class SwitchRouter(nn.Module):
    """A Switch-Transformer top-1 router with its load-balancing loss: the tokens per expert
    and the router probability mass per expert are counted with `bincount` (`minlength` from
    the expert count of the config, the mass as weights)."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.gate = nn.Linear(dim, num_experts, bias=False)

    def forward(self, x):
        logits = self.gate(x.reshape(-1, x.shape[-1]))
        probs = F.softmax(logits, dim=-1)
        top_p, expert = probs.max(dim=-1)
        tokens = torch.bincount(expert, minlength=self.num_experts)
        mass = torch.bincount(expert, weights=top_p, minlength=self.num_experts)
        frac_tokens = tokens.float() / expert.numel()
        frac_mass = mass / expert.numel()
        aux_loss = self.num_experts * (frac_tokens * frac_mass).sum()
        return top_p, expert, aux_loss
