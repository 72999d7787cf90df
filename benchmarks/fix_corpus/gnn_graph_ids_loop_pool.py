# spec: {"model": "gnn_graph_ids_loop_pool.py:GraphClassifier", "init": {"args": [6, 3]}, "inputs": [{"tensor": [14, 6]}, {"tensor": [14], "dtype": "int64", "data": [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3]}]}
import torch
import torch.nn as nn


class GraphClassifier(nn.Module):
    """Mini-batched graph classification; node features pooled graph by graph over the batch vector."""

    def __init__(self, in_dim, n_cls):
        super().__init__()
        self.node_mlp = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU())
        self.cls = nn.Linear(32, n_cls)

    def forward(self, x, batch):
        h = self.node_mlp(x)
        pooled = []
        for g in batch.unique():
            hg = h[batch == g]
            pooled.append(torch.cat([hg.mean(0), hg.max(0).values]))
        return self.cls(torch.stack(pooled))
