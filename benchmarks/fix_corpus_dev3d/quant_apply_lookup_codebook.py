# spec: {"model": "quant_apply_lookup_codebook.py:LogQuantLinear", "init": {"args": [6, 4]}, "inputs": [{"tensor": [2, 6]}]}
import math

import torch
from torch import nn
from torch.nn import functional as F


def _log2_round(v):
    if v == 0.0:
        return 0.0
    return math.copysign(2.0 ** round(math.log2(abs(v))), v)


class LogQuantLinear(nn.Module):
    """Power-of-two weight quantisation from an early quantisation repo: each weight is rounded
    in the log domain by Tensor.apply_ with a Python function."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * 0.5)

    def forward(self, x):
        wq = self.weight.detach().clone().apply_(_log2_round)
        return F.linear(x, wq)
