# spec: {"model": "multitask_lazy_heads.py:MultiTaskModel", "init": {"args": [12]}, "inputs": [{"tensor": [4, 12]}]}
import torch
from torch import nn


class MultiTaskModel(nn.Module):
    """Shared trunk with per-task heads created on first use (multi-task research code)."""

    def __init__(self, dim, tasks=("cls", "reg")):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, 24), nn.ReLU())
        self.tasks = tasks
        self.heads = nn.ModuleDict()

    def forward(self, x):
        h = self.trunk(x)
        outs = []
        for task in self.tasks:
            if task not in self.heads:
                self.heads[task] = nn.Linear(h.shape[-1], 3)
            outs.append(self.heads[task](h))
        return torch.cat(outs, dim=-1)
