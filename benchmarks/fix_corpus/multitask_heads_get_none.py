# spec: {"model": "multitask_heads_get_none.py:MultiTaskNet", "init": {"args": [12]}, "inputs": [{"tensor": [4, 12]}]}
import torch
from torch import nn


class MultiTaskNet(nn.Module):
    """Per-task heads looked up (None when missing) and built on first use (MMF/multi-task style)."""

    def __init__(self, dim, tasks=("sentiment", "topic")):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 16), nn.GELU())
        self.tasks = tasks
        self.heads = nn.ModuleDict()

    def forward(self, x):
        h = self.encoder(x)
        logits = []
        for task in self.tasks:
            head = self.heads[task] if task in self.heads else None
            if head is None:
                head = nn.Linear(16, 4)
                self.heads[task] = head
            logits.append(head(h))
        return torch.stack(logits, dim=1)
