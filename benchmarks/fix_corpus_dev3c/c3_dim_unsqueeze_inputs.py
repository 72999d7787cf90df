# spec: {"model": "c3_dim_unsqueeze_inputs.py:SequencePooler", "init": {"args": [16, 4]}, "inputs": [{"tensor": [3, 16]}], "calls": 3}
import torch
from torch import nn


class SequencePooler(nn.Module):
    """Accepts a single frame ``(B, D)`` or a sequence ``(B, T, D)``; pools to ``(B, classes)``."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        if x.dim() == 2:
            x = x.unsqueeze(1)
        elif x.ndim != 3:
            raise ValueError(f"expected 2-D or 3-D input, got {x.ndim}-D")
        x = torch.tanh(self.proj(x))
        x = x.mean(dim=1) if x.size(1) > 1 else x.squeeze(1)
        return self.head(x)
