# spec: {"model": "lazy_adapter_by_width.py:MultiBackboneProbe", "init": {"args": [8]}, "inputs": [{"tensor": [4, 24]}]}
from torch import nn


class MultiBackboneProbe(nn.Module):
    """A linear probe that accepts features from several backbones, creating an adapter per feature width on first use."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.adapters = nn.ModuleDict()
        self.head = nn.Linear(dim, 2)

    def forward(self, feats):
        key = str(feats.shape[-1])
        if key not in self.adapters:
            self.adapters[key] = nn.Linear(feats.shape[-1], self.dim)
        return self.head(self.adapters[key](feats).relu())
