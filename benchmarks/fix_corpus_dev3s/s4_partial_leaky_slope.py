# spec: {"model": "s4_partial_leaky_slope.py:Discriminator", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, 0.2], "variants": [{"inputs": [{"tensor": [4, 8]}, 0.1]}]}
import functools

import torch.nn.functional as F
from torch import nn


class Discriminator(nn.Module):
    """A GAN discriminator whose activation is a `functools.partial` built per call."""

    def __init__(self, dim):
        super().__init__()
        self.l1 = nn.Linear(dim, dim)
        self.l2 = nn.Linear(dim, 1)

    def forward(self, x, negative_slope):
        act = functools.partial(F.leaky_relu, negative_slope=negative_slope)
        return self.l2(act(self.l1(x)))
