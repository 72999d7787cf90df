# spec: {"model": "io_npy_feature_dump.py:DumpingEncoder", "init": {"args": ["features.npy"]}, "inputs": [{"tensor": [4, 10]}]}
import numpy as np
import torch
from torch import nn


class DumpingEncoder(nn.Module):
    """An encoder that appends its embeddings to a .npy file for a t-SNE plot later (notebook habit)."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self.enc = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        z = self.enc(x)
        with open(self.path, "ab") as f:
            np.save(f, z.detach().cpu().numpy())
        return z
