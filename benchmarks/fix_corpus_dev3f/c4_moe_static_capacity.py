# spec: {"model": "c4_moe_static_capacity.py:SwitchMoE", "init": {"args": [16], "kwargs": {"num_experts": 4, "capacity_factor": 1.25}}, "inputs": [{"tensor": [2, 8, 16]}], "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class SwitchMoE(nn.Module):
    """Switch Transformer top-1 routing with a static expert capacity (mesh-tensorflow / the
    fairseq ``top1gating`` form): the capacity an int from the token count, positions by
    ``cumsum`` of the one-hot mask, tokens over capacity dropped by a mask; dispatch and
    combine by ``einsum``; a load-balancing loss returned alongside."""

    def __init__(self, dim, num_experts=8, capacity_factor=1.0, hidden_mult=2):
        super().__init__()
        self.num_experts = num_experts
        self.capacity_factor = capacity_factor
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, dim * hidden_mult), nn.GELU(), nn.Linear(dim * hidden_mult, dim)) for _ in range(num_experts)
        )

    def forward(self, x):
        b, n, d = x.shape
        tokens = x.reshape(-1, d)
        num_tokens = tokens.shape[0]
        capacity = int(self.capacity_factor * num_tokens / self.num_experts)
        logits = self.gate(tokens)
        gates = F.softmax(logits, dim=-1)
        indices = torch.argmax(gates, dim=-1)
        mask = F.one_hot(indices, num_classes=self.num_experts)
        me = gates.mean(dim=0)
        ce = mask.float().mean(dim=0)
        l_aux = (me * ce).sum() * self.num_experts
        locations = torch.cumsum(mask, dim=0) - 1
        mask = mask * (locations < capacity)
        locations_s = (locations * mask).sum(dim=1)
        gate_s = (gates * mask).sum(dim=1)
        loc_sc = F.one_hot(locations_s, num_classes=capacity).to(gates.dtype)
        combine = gate_s[:, None, None] * mask.to(gates.dtype)[:, :, None] * loc_sc[:, None, :]
        dispatch = combine.bool().to(tokens.dtype)
        expert_inputs = torch.einsum("sec,sd->ecd", dispatch, tokens)
        expert_outputs = torch.stack([expert(expert_inputs[i]) for i, expert in enumerate(self.experts)])
        out = torch.einsum("sec,ecd->sd", combine, expert_outputs)
        return out.view(b, n, d), l_aux
