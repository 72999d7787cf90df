# spec: {"model": "st_gnn_complete_graph.py:CompleteGraphLayer", "init": {"args": [8]}, "inputs": [{"tensor": [5, 8]}]}
import torch
from torch import nn


class CompleteGraphLayer(nn.Module):
    """An EGNN/relational layer over the complete graph of a small point set: pair features
    are built densely, the edges are the off-diagonal pairs, the self-loops the diagonal."""

    def __init__(self, dim):
        super().__init__()
        self.edge_mlp = nn.Sequential(nn.Linear(2 * dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.self_mlp = nn.Linear(2 * dim, dim)

    def _edge_mask(self, n, device):
        return ~torch.eye(n, dtype=torch.bool, device=device)

    def forward(self, h):
        n, d = h.shape
        pairs = torch.cat([h[:, None].expand(n, n, d), h[None, :].expand(n, n, d)], dim=-1)
        edges = pairs[self._edge_mask(n, h.device)]
        messages = self.edge_mlp(edges).view(n, n - 1, d).sum(1)
        loops = pairs[torch.eye(n, dtype=torch.bool, device=h.device)]
        return h + messages + self.self_mlp(loops)
