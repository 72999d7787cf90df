# spec: {"model": "prof_class_ctx_sparsity.py:SparseGate", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class Region:
    """A hand-written profiling region (a class with __enter__/__exit__)."""

    names = []

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        Region.names.append(self.name)
        return self

    def __exit__(self, *exc):
        return False


class SparseGate(nn.Module):
    """A gate that keeps its sparsity statistic as a Python float inside a profiled region."""

    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        with Region("gate"):
            g = torch.sigmoid(self.gate(x))
            sparsity = (g < 0.1).float().mean().item()
        keep = g * (1.0 - sparsity)
        total = keep.sum().item()
        return keep / total
