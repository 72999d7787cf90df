# spec: {"model": "moe_safe_one_hot_dispatch.py:Top1Gating", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 6, 8]}]}
import math

import torch
import torch.nn.functional as F
from torch import nn


# vendored from mixture-of-experts 0.2.3 mixture_of_experts/mixture_of_experts.py
def cumsum_exclusive(t, dim=-1):
    num_dims = len(t.shape)
    num_pad_dims = - dim - 1
    pre_padding = (0, 0) * num_pad_dims
    pre_slice   = (slice(None),) * num_pad_dims
    padded_t = F.pad(t, (*pre_padding, 1, 0)).cumsum(dim=dim)
    return padded_t[(..., slice(None, -1), *pre_slice)]

# pytorch one hot throws an error if there are out of bound indices.
# tensorflow, in contrast, does not throw an error
def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    return F.one_hot(indexes, max(max_index + 1, max_length))[..., :max_length]


class Top1Gating(nn.Module):
    def __init__(self, dim, num_gates, capacity_factor = 1.25, eps = 1e-9):
        super().__init__()
        self.eps = eps
        self.num_gates = num_gates
        self.w_gating = nn.Parameter(torch.randn(dim, num_gates))
        self.capacity_factor = capacity_factor

    def forward(self, x):
        b, group_size, dim = x.shape
        num_gates = self.num_gates
        raw_gates = torch.einsum('...bnd,...de->...bne', x, self.w_gating).softmax(dim=-1)
        gate_1, index_1 = raw_gates.max(dim=-1)
        mask_1 = F.one_hot(index_1, num_gates).float()
        expert_capacity = min(group_size, int((group_size * self.capacity_factor) / num_gates))
        expert_capacity = max(expert_capacity, 4)
        position_in_expert_1 = cumsum_exclusive(mask_1, dim=-2) * mask_1
        mask_1 = mask_1 * (position_in_expert_1 < expert_capacity).float()
        position_in_expert_1 = position_in_expert_1.sum(dim=-1)
        combine_tensor = (
            gate_1[..., None, None]
            * mask_1.sum(dim=-1)[..., None, None]
            * F.one_hot(index_1, num_gates)[..., None]
            * safe_one_hot(position_in_expert_1.long(), expert_capacity)[..., None, :]
        )
        return combine_tensor
