# spec: {"model": "debug_repr_stats_snapshot.py:ProbeEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}]}
from torch import nn


class ProbeEncoder(nn.Module):
    """Encoder that keeps a printable snapshot of its last activation statistics for a debug
    endpoint (repr of a small stats tensor)."""

    def __init__(self, dim):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.last_stats = ""

    def forward(self, x):
        h = self.enc(x)
        stats = h.detach().aminmax()
        self.last_stats = repr(stats)
        return h.softmax(-1)
