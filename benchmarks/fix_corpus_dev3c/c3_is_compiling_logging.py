# spec: {"model": "c3_is_compiling_logging.py:LoggedEncoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 7, 16]}], "calls": 3}
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class LoggedEncoder(nn.Module):
    """Logs activation norms in eager runs only; under torch.compile the branch is skipped."""

    def __init__(self, dim, log_every=1):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=2 * dim, batch_first=True, dropout=0.0)
        self.norm = nn.LayerNorm(dim)
        self.log_every = log_every

    def forward(self, x):
        h = self.layer(x)
        if not torch.compiler.is_compiling():
            norm = h.norm(dim=-1).mean().item()
            if norm > 1e3:
                logger.warning("large activation norm %.1f", norm)
            logger.debug("encoder norm %.3f", norm)
        return self.norm(h)
