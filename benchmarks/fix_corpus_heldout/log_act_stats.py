# spec: {"model": "log_act_stats.py:InstrumentedMLP", "init": {"args": [16, 32]}, "inputs": [{"tensor": [4, 16]}]}
import torch
from torch import nn


class InstrumentedMLP(nn.Module):
    """An MLP that keeps the last activation statistics for a dashboard (wandb-style logging)."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.last_stats = {}

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        self.last_stats = {
            "act_mean": float(h.mean()),
            "act_max": float(h.amax()),
            "dead_frac": float((h == 0).float().mean()),
        }
        return self.fc2(h)
