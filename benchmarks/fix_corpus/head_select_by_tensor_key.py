# spec: {"model": "head_select_by_tensor_key.py:RoutedHeads", "inputs": [{"tensor": [4, 8], "init": "randn"}]}
import torch
from torch import nn


class RoutedHeads(nn.Module):
    """Routes the whole batch to a head by name, the name picked from the batch mean: the
    chosen string selects a submodule, so no tensor form of it exists (must not be rewritten)."""

    def __init__(self, dim=8):
        super().__init__()
        self.trunk = nn.Linear(dim, dim)
        self.heads = nn.ModuleDict({"pos": nn.Linear(dim, 3), "neg": nn.Linear(dim, 3)})

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        if h.mean() > 0.2:
            name = "pos"
        else:
            name = "neg"
        return self.heads[name](h)
