# spec: {"model": "gnn_sparse_adj_mm.py:SparseGCNLayer", "init": {"args": [8, 8]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [2, 10], "dtype": "int64", "init": "randint", "low": 0, "high": 6}]}
import torch
from torch import nn


class SparseGCNLayer(nn.Module):
    """Kipf & Welling GCN layer with the normalised adjacency as a sparse COO matrix (pygcn-style)."""

    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x, edge_index):
        n = x.shape[0]
        loops = torch.arange(n).repeat(2, 1)
        edges = torch.cat([edge_index, loops], dim=1)
        w = torch.ones(edges.shape[1])
        deg = torch.zeros(n).index_add_(0, edges[0], w)
        norm = deg[edges[0]].rsqrt() * deg[edges[1]].rsqrt()
        adj = torch.sparse_coo_tensor(edges, norm, (n, n))
        return torch.relu(torch.sparse.mm(adj, self.lin(x)))
