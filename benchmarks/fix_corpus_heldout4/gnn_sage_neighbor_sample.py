# spec: {"model": "gnn_sage_neighbor_sample.py:SampledSAGE", "init": {"args": [8, 16]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [2, 30], "dtype": "int64", "init": "randint", "low": 0, "high": 10}]}
import torch
from torch import nn


class SampledSAGE(nn.Module):
    """GraphSAGE layer with uniform neighbour sampling (at most k neighbours per node) done in forward."""

    def __init__(self, in_dim, out_dim, num_samples=3):
        super().__init__()
        self.num_samples = num_samples
        self.lin_self = nn.Linear(in_dim, out_dim)
        self.lin_neigh = nn.Linear(in_dim, out_dim)

    def sample_neighbors(self, edge_index, num_nodes):
        src, dst = edge_index
        sampled = []
        for v in range(num_nodes):
            nbrs = src[dst == v]
            deg = nbrs.numel()
            if deg > self.num_samples:
                nbrs = nbrs[torch.randperm(deg)[: self.num_samples]]
            sampled.append(nbrs)
        return sampled

    def forward(self, x, edge_index):
        neigh = self.sample_neighbors(edge_index, x.size(0))
        agg = torch.stack([x[n].mean(0) if n.numel() else torch.zeros_like(x[0]) for n in neigh])
        return torch.relu(self.lin_self(x) + self.lin_neigh(agg))
