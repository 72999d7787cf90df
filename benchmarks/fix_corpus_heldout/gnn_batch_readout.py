# spec: {"model": "gnn_batch_readout.py:GraphClassifier", "init": {"args": [8, 3]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12], "dtype": "int64", "data": [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2]}]}
import torch
from torch import nn


def global_mean_pool(x, batch):
    size = int(batch.max().item() + 1)
    out = torch.zeros(size, x.size(-1), dtype=x.dtype).index_add_(0, batch, x)
    count = torch.zeros(size, dtype=x.dtype).index_add_(0, batch, torch.ones_like(batch, dtype=x.dtype))
    return out / count.clamp(min=1).unsqueeze(-1)


class GraphClassifier(nn.Module):
    """Graph-level classification with a PyG-style mean readout over the batch vector."""

    def __init__(self, dim, n_classes):
        super().__init__()
        self.node_mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.out = nn.Linear(dim, n_classes)

    def forward(self, x, batch):
        h = self.node_mlp(x)
        return self.out(global_mean_pool(h, batch))
