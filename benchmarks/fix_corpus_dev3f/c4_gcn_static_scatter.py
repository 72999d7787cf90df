# spec: {"model": "c4_gcn_static_scatter.py:GCN", "init": {"args": [8, 16, 3], "kwargs": {"num_nodes": 6}}, "inputs": [{"tensor": [6, 8]}], "calls": 3}
import torch
from torch import nn


def ring_edges(num_nodes):
    src = torch.arange(num_nodes)
    dst = (src + 1) % num_nodes
    return torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])


def add_self_loops(edge_index, num_nodes):
    loop = torch.arange(num_nodes, device=edge_index.device)
    return torch.cat([edge_index, torch.stack([loop, loop])], dim=1)


class GCNConv(nn.Module):
    """PyG's ``GCNConv`` written out: symmetric normalisation from degrees made with
    ``scatter_add_`` into a zeros tensor of the node count, messages summed with ``index_add``."""

    def __init__(self, in_channels, out_channels, improved=False, add_self_loops=True):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))
        self.improved = improved
        self.add_self_loops = add_self_loops

    def forward(self, x, edge_index):
        num_nodes = x.size(0)
        if self.add_self_loops:
            edge_index = add_self_loops(edge_index, num_nodes)
        row, col = edge_index[0], edge_index[1]
        edge_weight = torch.ones(edge_index.size(1), dtype=x.dtype, device=x.device)
        if self.improved:
            edge_weight = edge_weight * 2
        deg = torch.zeros(num_nodes, dtype=x.dtype, device=x.device).scatter_add_(0, col, edge_weight)
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt = deg_inv_sqrt.masked_fill(deg_inv_sqrt == float("inf"), 0)
        norm = deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]
        x = self.lin(x)
        msg = x.index_select(0, row) * norm.view(-1, 1)
        out = torch.zeros_like(x).index_add(0, col, msg)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, in_channels, hidden, num_classes, num_nodes=10, dropout=0.5):
        super().__init__()
        self.convs = nn.ModuleList([GCNConv(in_channels, hidden), GCNConv(hidden, num_classes)])
        self.dropout = dropout
        self.register_buffer("edge_index", ring_edges(num_nodes))

    def forward(self, x):
        for i, conv in enumerate(self.convs):
            x = conv(x, self.edge_index)
            if i != len(self.convs) - 1:
                x = x.relu()
                x = nn.functional.dropout(x, p=self.dropout, training=self.training)
        return x.log_softmax(dim=-1)
