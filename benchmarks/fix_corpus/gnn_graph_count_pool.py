# spec: {"model": "gnn_graph_count_pool.py:GraphMeanReadout", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12], "dtype": "int64", "data": [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3]}]}
import torch
from torch import nn


class GraphMeanReadout(nn.Module):
    """A graph-level readout: node features averaged per graph, the number of graphs read from batch.max() + 1 (PyG global_mean_pool without size)."""

    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, batch):
        h = self.lin(x).relu()
        size = int(batch.max()) + 1
        sums = torch.zeros(size, h.size(-1), dtype=h.dtype, device=h.device).index_add_(0, batch, h)
        counts = torch.zeros(size, dtype=h.dtype, device=h.device).index_add_(0, batch, torch.ones_like(batch, dtype=h.dtype))
        return sums / counts.clamp(min=1).unsqueeze(-1)
