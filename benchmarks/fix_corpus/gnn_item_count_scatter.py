# spec: {"model": "gnn_item_count_scatter.py:AttentionReadout", "init": {"args": [8]}, "inputs": [{"tensor": [11, 8], "init": "randn"}, {"tensor": [11], "dtype": "int64", "data": [0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3]}]}
import torch
from torch import nn


class AttentionReadout(nn.Module):
    """PyG `AttentionalAggregation`-style readout without `dim_size`: the number of graphs is
    read as `batch.max().item() + 1` and sizes the scatter buffers (the output has one row per
    graph: its shape is the data's)."""

    def __init__(self, dim):
        super().__init__()
        self.gate_nn = nn.Linear(dim, 1)
        self.nn = nn.Linear(dim, dim)

    def forward(self, x, batch):
        num_graphs = batch.max().item() + 1
        gate = self.gate_nn(x).squeeze(-1)
        gmax = torch.full((num_graphs,), float("-inf"), device=x.device).scatter_reduce(
            0, batch, gate, reduce="amax"
        )
        gate = (gate - gmax[batch]).exp()
        denom = torch.zeros(num_graphs, device=x.device).index_add_(0, batch, gate)
        gate = gate / denom[batch]
        out = torch.zeros(num_graphs, x.size(-1), device=x.device)
        return out.index_add_(0, batch, gate.unsqueeze(-1) * self.nn(x))
