# spec: {"model": "gnn_to_sparse_adj_norm.py:DenseToSparseGCN", "init": {"args": [8, 8]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6, 6], "init": "rand"}]}
import torch
from torch import nn


class DenseToSparseGCN(nn.Module):
    """GCN layer taking a dense soft adjacency, sparsified by threshold and converted with
    to_sparse() for the propagation (pygcn style)."""

    def __init__(self, n_in, n_out, thresh=0.5):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)
        self.thresh = thresh

    def forward(self, x, adj):
        adj = adj * (adj > self.thresh)
        deg = adj.sum(1).clamp(min=1)
        adj_sp = (adj / deg.unsqueeze(1)).to_sparse()
        h = torch.sparse.mm(adj_sp, self.lin(x))
        return h.relu()
