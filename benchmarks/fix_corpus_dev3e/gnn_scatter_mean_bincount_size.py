# spec: {"model": "gnn_scatter_mean_bincount_size.py:MeanAggConv", "init": {"args": [8]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [2, 30], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
from torch import nn


def scatter_mean(src, index, dim_size):
    out = src.new_zeros(dim_size, src.size(-1)).index_add_(0, index, src)
    count = torch.bincount(index, minlength=dim_size).clamp(min=1)
    return out / count[:, None].to(src.dtype)


class MeanAggConv(nn.Module):
    """SAGEConv-style mean aggregation; the output size is the node count of `x` (PyG passes
    `dim_size=x.size(0)`), not read from the edge index."""

    def __init__(self, dim):
        super().__init__()
        self.lin_l = nn.Linear(dim, dim)
        self.lin_r = nn.Linear(dim, dim, bias=False)

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = scatter_mean(x[src], dst, dim_size=x.size(0))
        return self.lin_l(agg) + self.lin_r(x)
