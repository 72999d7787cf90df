# spec: {"model": "grad_overflow_flag_return.py:ScaledLossHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8], "init": "randn"}, {"tensor": [4, 8], "init": "randn"}], "mode": "train"}
import torch
from torch import nn
from torch.nn import functional as F


class ScaledLossHead(nn.Module):
    """apex / fairseq dynamic loss scaling flavour: the step reports whether the loss overflowed,
    as a Python bool returned next to the loss for the trainer to skip the step."""

    def __init__(self, dim, max_loss=1e4):
        super().__init__()
        self.head = nn.Linear(dim, dim)
        self.max_loss = max_loss

    def forward(self, x, target):
        loss = F.mse_loss(self.head(x), target)
        if not torch.isfinite(loss) or loss > self.max_loss:
            overflow = True
        else:
            overflow = False
        return loss, overflow
