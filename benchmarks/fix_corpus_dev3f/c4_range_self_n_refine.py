# spec: {"model": "c4_range_self_n_refine.py:RecurrentRefiner", "init": {"args": [16], "kwargs": {"iters": 3, "num_layers": 2}}, "inputs": [{"tensor": [2, 16]}], "calls": 3}
import torch
from torch import nn


class RecurrentRefiner(nn.Module):
    """RAFT-style iterative refinement: ``for itr in range(self.iters)`` with a GRU cell, the
    per-iteration predictions collected in a list (``flow_predictions``); an inner stack run by
    index ``self.layers[i]`` over ``range(self.num_layers)``; a weighted sequence loss with
    ``gamma ** (n - i - 1)``."""

    def __init__(self, dim, iters=12, num_layers=2, gamma=0.8):
        super().__init__()
        self.iters = iters
        self.num_layers = num_layers
        self.gamma = gamma
        self.gru = nn.GRUCell(dim, dim)
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_layers)])
        self.head = nn.Linear(dim, dim)

    def forward(self, x):
        h = torch.tanh(x)
        pred = torch.zeros_like(x)
        predictions = []
        for itr in range(self.iters):
            pred = pred.detach()
            inp = x + pred
            for i in range(self.num_layers):
                inp = torch.relu(self.layers[i](inp))
            h = self.gru(inp, h)
            pred = pred + self.head(h)
            predictions.append(pred)
        n_predictions = len(predictions)
        loss = 0.0
        for i in range(n_predictions):
            i_weight = self.gamma ** (n_predictions - i - 1)
            loss += i_weight * (predictions[i] - x).abs().mean()
        return predictions[-1], loss
