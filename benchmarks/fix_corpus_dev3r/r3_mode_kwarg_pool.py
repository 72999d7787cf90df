# spec: {"model": "r3_mode_kwarg_pool.py:Encoder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"mode": "train"}, "variants": [{"inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"mode": "eval"}}, {"inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"mode": "embed"}}]}
import torch
from torch import nn


class Encoder(nn.Module):
    """A sentence encoder whose forward returns different things by a `mode` string."""

    def __init__(self, dim):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.cls = nn.Linear(dim, 3)

    def forward(self, x, mode="train"):
        h = torch.relu(self.body(x))
        if mode == "embed":
            return h.mean(1)
        logits = self.cls(h.mean(1))
        if mode == "train":
            return logits.log_softmax(-1)
        return logits.argmax(-1)
