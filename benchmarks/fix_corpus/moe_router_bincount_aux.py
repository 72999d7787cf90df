# spec: {"model": "moe_router_bincount_aux.py:SwitchRouter", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 6, 16], "init": "randn"}]}
import torch
import torch.nn.functional as F
from torch import nn


class SwitchRouter(nn.Module):
    """A Switch-Transformer top-1 router with its load-balancing loss: the tokens per expert
    are counted with `bincount` (`minlength` from the expert count of the config), and the
    mean routing confidence per expert (a statistic, no gradient) with `bincount` weights."""

    def __init__(self, dim, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.gate = nn.Linear(dim, num_experts, bias=False)

    def forward(self, x):
        logits = self.gate(x.reshape(-1, x.shape[-1]))
        probs = F.softmax(logits, dim=-1)
        top_p, expert = probs.max(dim=-1)
        tokens = torch.bincount(expert, minlength=self.num_experts)
        conf = torch.bincount(expert, weights=top_p.detach(), minlength=self.num_experts)
        conf = conf / tokens.clamp(min=1)
        frac_tokens = tokens.float() / expert.numel()
        aux_loss = self.num_experts * (frac_tokens * probs.mean(dim=0)).sum()
        return top_p, aux_loss, conf
