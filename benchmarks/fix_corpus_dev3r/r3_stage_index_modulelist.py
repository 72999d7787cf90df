# spec: {"model": "r3_stage_index_modulelist.py:MultiHead", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, 0], "variants": [{"inputs": [{"tensor": [2, 8]}, 1]}, {"inputs": [{"tensor": [2, 8]}, 2]}]}
import torch
from torch import nn


class MultiHead(nn.Module):
    """A multi-task model whose head is chosen by an int task id."""

    def __init__(self, dim, tasks=3):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.heads = nn.ModuleList([nn.Linear(dim, 2) for _ in range(tasks)])

    def forward(self, x, task_id):
        return self.heads[task_id](torch.relu(self.body(x)))
