# spec: {"model": "s4_cfg_use_cache_flag.py:CachedDecoder", "init": {"args": [8]}, "inputs": [{"tensor": [1, 3, 8]}], "calls": 3}
from types import SimpleNamespace

import torch
from torch import nn


class CachedDecoder(nn.Module):
    """Turns `config.use_cache` off after the prompt, like generate() does for gradient checkpointing."""

    def __init__(self, dim):
        super().__init__()
        self.config = SimpleNamespace(use_cache=True, prompt_done=False)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        if self.config.use_cache:
            h = torch.cat([h, h[:, -1:]], dim=1)
            self.config.use_cache = False
        return h.mean(1)
