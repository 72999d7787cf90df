"""st-moe-pytorch: a sparsely gated (top-2) mixture of experts block with its auxiliary losses."""

import torch
from st_moe_pytorch import MoE, SparseMoEBlock


class Layer(torch.nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        moe = MoE(dim=dim, num_experts=4, gating_top_n=2, threshold_train=0.2)
        self.block = SparseMoEBlock(moe, add_ff_before=True, add_ff_after=True)

    def forward(self, x):
        out, total_aux_loss, balance_loss, router_z_loss = self.block(x)
        return out, total_aux_loss


def make():
    torch.manual_seed(0)
    return Layer(), (torch.randn(2, 8, 16),)
