# spec: {"model": "gnn_split_max_pool.py:MaxPoolGraphClassifier", "init": {"args": [8, 2]}, "inputs": [{"tensor": [10, 8], "init": "randn"}, {"tensor": [3], "dtype": "int64", "data": [3, 5, 2]}]}
import torch
from torch import nn


class MaxPoolGraphClassifier(nn.Module):
    """A graph classifier with a max readout written per graph (`global_max_pool` over node
    counts): the node states are split by the counts read with `.tolist()`, each graph keeps
    its feature-wise max (`amax(0, keepdim=True)`) and the rows are concatenated."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.conv = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, num_nodes):
        h = self.conv(x)
        graphs = h.split(num_nodes.tolist())
        pooled = torch.cat([g.amax(dim=0, keepdim=True) for g in graphs], dim=0)
        return self.head(pooled)
