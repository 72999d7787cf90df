# spec: {"model": "gnn_gat.py:GATLayer", "init": {"args": [8, 8]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [2, 30], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
import torch.nn.functional as F
from torch import nn


def maybe_num_nodes(edge_index, num_nodes=None):
    if num_nodes is not None:
        return num_nodes
    return int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0


def softmax(src, index, num_nodes):
    src_max = torch.zeros(num_nodes, dtype=src.dtype).scatter_reduce(
        0, index, src, reduce="amax", include_self=False
    )
    out = (src - src_max[index]).exp()
    out_sum = torch.zeros(num_nodes, dtype=src.dtype).index_add_(0, index, out)
    return out / (out_sum[index] + 1e-16)


class GATLayer(nn.Module):
    """A single-head graph attention layer written in the PyG message-passing style."""

    def __init__(self, in_channels, out_channels, negative_slope=0.2):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.att_src = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.att_dst = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.negative_slope = negative_slope

    def forward(self, x, edge_index):
        num_nodes = maybe_num_nodes(edge_index)
        h = self.lin(x)
        src, dst = edge_index[0], edge_index[1]
        alpha = (h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst]
        alpha = F.leaky_relu(alpha, self.negative_slope)
        alpha = softmax(alpha, dst, num_nodes)
        out = torch.zeros(num_nodes, h.size(-1)).index_add_(0, dst, h[src] * alpha.unsqueeze(-1))
        return out[: x.size(0)]
