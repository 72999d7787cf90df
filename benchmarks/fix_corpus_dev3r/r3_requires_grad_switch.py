# spec: {"model": "r3_requires_grad_switch.py:Saliency", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [2, 8], "requires_grad": true}]}]}
import torch
from torch import nn


class Saliency(nn.Module):
    """A classifier called plainly, then with an input that requires grad for saliency maps."""

    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x).log_softmax(-1)
