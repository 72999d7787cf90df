# spec: {"model": "log_getlogger_info_norms.py:ResidualMLP", "init": {"args": [24, 3]}, "inputs": [{"tensor": [4, 24]}]}
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class ResidualMLP(nn.Module):
    """Residual MLP stack that logs each block's output norm at INFO level."""

    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            x = x + block(x)
            logger.info("block %d out norm %.4f", i, x.norm(dim=-1).mean())
        return x
