# spec: {"model": "log_logger_debug_shapes.py:LoggedEncoder", "init": {"args": [12, 24]}, "inputs": [{"tensor": [4, 7, 12]}]}
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class LoggedEncoder(nn.Module):
    """Transformer encoder block whose forward logs shapes and norms at debug level (library logging habit)."""

    def __init__(self, in_dim, dim, heads=4):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x):
        logger.debug("encoder input %s", tuple(x.shape))
        h = self.inp(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        h = self.norm1(h + a)
        h = self.norm2(h + self.ff(h))
        logger.debug("encoder output norm %.4f", h.norm().item())
        return h
