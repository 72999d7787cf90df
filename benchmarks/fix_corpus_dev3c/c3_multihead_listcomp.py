# spec: {"model": "c3_multihead_listcomp.py:MultiTaskHeads", "init": {"args": [16], "kwargs": {"tasks": {"age": 1, "gender": 2, "emotion": 7}}}, "inputs": [{"tensor": [3, 16]}], "calls": 3}
import torch
from torch import nn


class MultiTaskHeads(nn.Module):
    """One head per task in a ModuleDict; outputs gathered in a dict comprehension."""

    def __init__(self, dim, tasks):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(dim, n) for name, n in tasks.items()})
        self.task_names = sorted(tasks)

    def forward(self, x):
        feats = self.trunk(x)
        outs = {name: self.heads[name](feats) for name in self.task_names}
        logits = [outs[name] for name in self.task_names]
        outs["all"] = torch.cat(logits, dim=-1)
        return outs
