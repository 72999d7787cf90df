# spec: {"model": "lazy_task_heads.py:MultiTaskHeads", "init": {"args": [16]}, "inputs": [{"tensor": [3, 16]}, "segmentation"]}
import torch
from torch import nn


class MultiTaskHeads(nn.Module):
    """Task heads created on demand the first time a task name is seen (multi-task research code)."""

    def __init__(self, dim, default_classes=5):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.heads = nn.ModuleDict()
        self.default_classes = default_classes

    def forward(self, x, task):
        h = self.trunk(x)
        if task not in self.heads:
            self.heads[task] = nn.Linear(h.shape[-1], self.default_classes)
        return self.heads[task](h)
