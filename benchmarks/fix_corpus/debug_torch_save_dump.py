# spec: {"model": "debug_torch_save_dump.py:ResidualStack", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}]}
import os
import tempfile

import torch
from torch import nn


class ResidualStack(nn.Module):
    """Residual MLP blocks; while chasing a divergence the author dumps every block output with torch.save."""

    def __init__(self, dim, depth=3, dump_dir=None):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.dump_dir = dump_dir or tempfile.mkdtemp(prefix="acts_")

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            x = x + block(x)
            torch.save(x.detach().cpu(), os.path.join(self.dump_dir, f"block{i}.pt"))
        return x
