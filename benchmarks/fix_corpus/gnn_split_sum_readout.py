# spec: {"model": "gnn_split_sum_readout.py:GINReadout", "init": {"args": [8, 3]}, "inputs": [{"tensor": [10, 8], "init": "randn"}, {"tensor": [4], "dtype": "int64", "data": [2, 3, 1, 4]}]}
import torch
from torch import nn


class GINReadout(nn.Module):
    """A GIN-style graph readout over a batch of graphs given by their node counts (DGL's
    `batch_num_nodes`): the node features are split per graph with the counts read by
    `.tolist()`, summed per graph in a loop, and classified."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, batch_num_nodes):
        h = self.mlp(x)
        graph_feats = []
        for g in torch.split(h, batch_num_nodes.tolist()):
            graph_feats.append(g.sum(0))
        return self.head(torch.stack(graph_feats))
