# spec: {"model": "debug_verbose_prints.py:FPNNeck", "inputs": [{"tensor": [1, 8, 16, 16]}]}
import logging
import warnings

import torch
import torch.nn.functional as F
from torch import nn

logger = logging.getLogger(__name__)


class FPNNeck(nn.Module):
    """A two-level FPN neck from research code, with its debugging prints left in."""

    def __init__(self, c=8, verbose=True):
        super().__init__()
        self.verbose = verbose
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
        self.lat = nn.Conv2d(c, c, 1)
        self.out = nn.Conv2d(c, c, 3, padding=1)
        self._warned = False

    def forward(self, x):
        self.verbose and print("neck input", tuple(x.shape))
        c2 = self.down(x); print("c2", c2.shape)
        feats = {"p1": x, "p2": c2}
        [logger.debug("%s %s", k, tuple(v.shape)) for k, v in feats.items()]
        up = F.interpolate(c2, scale_factor=2.0, mode="nearest")
        self._warned or warnings.warn("FPNNeck: nearest upsampling is used")
        p1 = self.out(self.lat(x) + up)
        return p1, c2
