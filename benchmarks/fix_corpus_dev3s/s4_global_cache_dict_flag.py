# spec: {"model": "s4_global_cache_dict_flag.py:RotaryBlock", "init": {"args": [8]}, "inputs": [{"tensor": [2, 6, 8]}], "calls": 2}
import torch
from torch import nn

_RUNTIME_STATE = {"warned": False, "scale": 1.0}


class RotaryBlock(nn.Module):
    """Warns once through a module-level state dict, then flips its flag."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        if not _RUNTIME_STATE["warned"]:
            _RUNTIME_STATE["warned"] = True
            x = x * _RUNTIME_STATE["scale"]
        return self.proj(x)
