# spec: {"model": "r3_batch_auto_dynamic.py:Classifier", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [3, 8]}]}, {"inputs": [{"tensor": [5, 8]}]}, {"inputs": [{"tensor": [7, 8]}]}]}
import torch
from torch import nn


class Classifier(nn.Module):
    """A classifier served with a batch size that changes per request."""

    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.GELU(), nn.Linear(16, 4))

    def forward(self, x):
        logits = self.net(x)
        return logits.view(x.size(0), -1).softmax(-1)
