# spec: {"model": "rec_dcn_oov_warn_fields.py:DCNv2", "init": {"kwargs": {"cardinalities": {"dict": {"user": 20, "item": 30, "city": 8}}}}, "inputs": [{"dict": {"user": {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 20}, "item": {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 30}, "city": {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 8}}}]}
import warnings

import torch
from torch import nn


class CrossLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w = nn.Linear(dim, dim)

    def forward(self, x0, x):
        return x0 * self.w(x) + x


class DCNv2(nn.Module):
    """DCN-v2 ranking model over a dict of categorical fields; out-of-vocabulary ids are warned about and clamped."""

    def __init__(self, cardinalities, dim=8, n_cross=2):
        super().__init__()
        self.cardinalities = dict(cardinalities)
        self.embs = nn.ModuleDict({k: nn.Embedding(n, dim) for k, n in cardinalities.items()})
        d = dim * len(cardinalities)
        self.cross = nn.ModuleList(CrossLayer(d) for _ in range(n_cross))
        self.deep = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, features):
        parts = []
        for name, ids in features.items():
            n = self.cardinalities[name]
            if (ids >= n).any():
                warnings.warn(f"field {name}: ids beyond vocabulary size {n}, clamping")
                ids = ids.clamp(max=n - 1)
            parts.append(self.embs[name](ids))
        x0 = x = torch.cat(parts, dim=-1)
        for layer in self.cross:
            x = layer(x0, x)
        return torch.sigmoid(self.deep(x)).squeeze(-1)
