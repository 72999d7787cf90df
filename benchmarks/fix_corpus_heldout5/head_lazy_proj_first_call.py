# spec: {"model": "head_lazy_proj_first_call.py:AdapterHead", "init": {"args": [6]}, "inputs": [{"tensor": [3, 20]}]}
import torch
from torch import nn


class AdapterHead(nn.Module):
    """Head for a backbone whose feature width is only known at the first batch (built on demand)."""

    def __init__(self, num_classes, hidden=32):
        super().__init__()
        self.num_classes = num_classes
        self.hidden = hidden
        self.proj = None
        self.classifier = nn.Linear(hidden, num_classes)

    def forward(self, feats):
        if self.proj is None:
            self.proj = nn.Sequential(nn.LayerNorm(feats.shape[-1]), nn.Linear(feats.shape[-1], self.hidden))
        return self.classifier(torch.relu(self.proj(feats)))
