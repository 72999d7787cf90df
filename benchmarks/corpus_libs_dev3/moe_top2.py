"""mixture-of-experts: the GShard top-2 gated experts layer between two projections."""

import torch
from mixture_of_experts import MoE


class MoEFFN(torch.nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.moe = MoE(dim=dim, num_experts=4, hidden_dim=dim * 2)

    def forward(self, x):
        out, aux_loss = self.moe(x)
        return out, aux_loss


def make():
    torch.manual_seed(0)
    return MoEFFN(), (torch.randn(2, 8, 16),)
