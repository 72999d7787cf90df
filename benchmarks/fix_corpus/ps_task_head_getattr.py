# spec: {"model": "ps_task_head_getattr.py:MultiTaskNet", "init": {"args": [12]}, "inputs": [{"tensor": [3, 12]}], "kwargs": {"task": "cls"}, "variants": [{"name": "reg", "inputs": [{"tensor": [3, 12]}], "kwargs": {"task": "reg"}}]}
import torch
from torch import nn


class MultiTaskNet(nn.Module):
    """Multi-task trunk whose head is looked up by a task-name string (MMF/LibMTL habit)."""

    def __init__(self, dim):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, 32), nn.ReLU())
        self.head_cls = nn.Linear(32, 5)
        self.head_reg = nn.Linear(32, 1)

    def forward(self, x, task):
        feats = self.trunk(x)
        head = getattr(self, f"head_{task}")
        out = head(feats)
        return out.log_softmax(-1) if task == "cls" else out
