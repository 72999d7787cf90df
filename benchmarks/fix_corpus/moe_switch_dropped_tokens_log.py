# spec: {"model": "moe_switch_dropped_tokens_log.py:SwitchFFN", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 8, 16]}]}
import logging

import torch
import torch.nn.functional as F
from torch import nn

log = logging.getLogger("moe")


class SwitchFFN(nn.Module):
    """Switch Transformer top-1 FFN with expert capacity; the number of dropped tokens is logged each call."""

    def __init__(self, dim, num_experts, capacity_factor=1.0):
        super().__init__()
        self.router = nn.Linear(dim, num_experts)
        self.w1 = nn.Parameter(torch.randn(num_experts, dim, 32) * 0.02)
        self.w2 = nn.Parameter(torch.randn(num_experts, 32, dim) * 0.02)
        self.capacity_factor = capacity_factor

    def forward(self, x):
        b, n, d = x.shape
        tokens = x.reshape(-1, d)
        probs = self.router(tokens).softmax(-1)
        gate, expert = probs.max(-1)
        E = probs.shape[-1]
        capacity = int(self.capacity_factor * tokens.shape[0] / E)
        onehot = F.one_hot(expert, E)
        position = (onehot.cumsum(0) * onehot).sum(-1) - 1
        kept = position < capacity
        dropped = (~kept).sum().item()
        if dropped > 0:
            log.info("switch: dropped %d of %d tokens", dropped, tokens.shape[0])
        dispatch = F.one_hot(expert, E).float() * kept[:, None]
        h = torch.einsum("te,td,edf->tef", dispatch, tokens, self.w1).relu()
        y = torch.einsum("tef,efd->td", h, self.w2) * gate[:, None]
        return y.reshape(b, n, d)
