# spec: {"model": "debug_logger_act_max.py:LoggedBlock", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}]}
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class LoggedBlock(nn.Module):
    """A pre-norm MLP block that logs activation magnitudes at debug level (large training codebase habit)."""

    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.mlp(self.norm(x))
        logger.debug("block max activation %.3f", h.abs().max())
        return x + h
