# spec: {"model": "r3_max_len_crop_branch.py:Cropper", "init": {"args": [8]}, "inputs": [{"tensor": [1, 4, 8]}], "variants": [{"inputs": [{"tensor": [1, 6, 8]}]}, {"inputs": [{"tensor": [1, 9, 8]}]}, {"inputs": [{"tensor": [1, 12, 8]}]}]}
import torch
from torch import nn


class Cropper(nn.Module):
    """Keeps the last `max_len` positions of a context that grows (nanoGPT's crop)."""

    def __init__(self, dim, max_len=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.max_len = max_len

    def forward(self, x):
        if x.size(1) > self.max_len:
            x = x[:, -self.max_len :]
        return self.fc(x).mean(1)
