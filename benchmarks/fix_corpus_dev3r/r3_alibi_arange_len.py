# spec: {"model": "r3_alibi_arange_len.py:AlibiBias", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 7, 7]}], "variants": [{"inputs": [{"tensor": [2, 4, 9, 9]}]}, {"inputs": [{"tensor": [2, 4, 12, 12]}]}]}
import torch
from torch import nn


class AlibiBias(nn.Module):
    """ALiBi position bias built from torch.arange over the key length."""

    def __init__(self, heads):
        super().__init__()
        slopes = torch.tensor([2 ** (-8 * (i + 1) / heads) for i in range(heads)])
        self.register_buffer("slopes", slopes)

    def forward(self, scores):
        n = scores.size(-1)
        pos = torch.arange(n, device=scores.device)
        rel = (pos[None, :] - pos[:, None]).abs().float()
        bias = -self.slopes[:, None, None] * rel
        return (scores + bias).softmax(-1)
