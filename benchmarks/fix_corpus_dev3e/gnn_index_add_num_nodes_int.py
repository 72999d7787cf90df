# spec: {"model": "gnn_index_add_num_nodes_int.py:SumAggConv", "init": {"args": [8]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [2, 24], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
from torch import nn


def maybe_num_nodes(edge_index, num_nodes=None):
    if num_nodes is not None:
        return num_nodes
    return int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0


class SumAggConv(nn.Module):
    """GraphConv-like layer without PyG: messages summed into destination nodes with
    `index_add_`, the node count inferred from the edge index (PyG's `maybe_num_nodes`)."""

    def __init__(self, dim):
        super().__init__()
        self.lin_rel = nn.Linear(dim, dim)
        self.lin_root = nn.Linear(dim, dim, bias=False)

    def forward(self, x, edge_index):
        src, dst = edge_index
        n = maybe_num_nodes(edge_index)
        msg = self.lin_rel(x)[src]
        out = msg.new_zeros(n, msg.size(-1)).index_add_(0, dst, msg)
        return out[: x.size(0)] + self.lin_root(x)
