# spec: {"model": "log_stdout_progress_dots.py:IterativeRefiner", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8]}]}
import sys

from torch import nn


class IterativeRefiner(nn.Module):
    """Iterative refinement (RAFT-like update loop) that writes a progress dot per step to
    stdout, as research scripts do."""

    def __init__(self, dim, iters):
        super().__init__()
        self.update = nn.GRUCell(dim, dim)
        self.iters = iters

    def forward(self, h):
        x = h
        for _ in range(self.iters):
            h = self.update(x, h)
            sys.stdout.write(".")
        sys.stdout.flush()
        return h
