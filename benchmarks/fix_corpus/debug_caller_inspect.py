# spec: {"model": "debug_caller_inspect.py:TracedAdapter", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}]}
import inspect

import torch
from torch import nn


class TracedAdapter(nn.Module):
    """A LoRA-style adapter that records who called it, for debugging a research codebase."""

    def __init__(self, dim, rank=2):
        super().__init__()
        self.base = nn.Linear(dim, dim)
        self.down = nn.Linear(dim, rank, bias=False)
        self.up = nn.Linear(rank, dim, bias=False)
        self.callers = set()

    def forward(self, x):
        frame = inspect.currentframe().f_back
        self.callers.add(frame.f_code.co_name if frame is not None else "?")
        return self.base(x) + self.up(self.down(x))
