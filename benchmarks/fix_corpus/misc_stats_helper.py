# spec: {"model": "misc_stats_helper.py:Net", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


def batch_scale(stats):
    return stats["std"].item()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        stats = {"std": x.std(), "mean": x.mean()}
        s = stats["std"].item()
        return self.fc(x - stats["mean"]) * s
