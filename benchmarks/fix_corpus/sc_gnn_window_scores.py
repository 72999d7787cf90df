# spec: {"model": "sc_gnn_window_scores.py:WindowReadout", "init": {"args": [8]}, "inputs": [{"tensor": [2, 40, 8]}, {"tensor": [2], "dtype": "int64", "data": [30, 25]}]}
import torch
from torch import nn


class WindowReadout(nn.Module):
    """Graph readout over a node window (PyG-like padded batch): the first nodes, up to the
    largest valid count, scored and summed."""

    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.value = nn.Linear(dim, dim)

    def forward(self, x, num_nodes):
        n = num_nodes.max().item()
        h = x.narrow(1, 0, n)
        s = torch.sigmoid(self.score(h))
        return (s * self.value(h)).sum(dim=1)
