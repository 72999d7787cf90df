# spec: {"model": "hook_prehook_handle_adapter.py:PromptInjectedEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}]}
import torch
from torch import nn


class PromptInjectedEncoder(nn.Module):
    """Visual-prompt style adapter: a forward pre-hook adds a learned prompt to the second block's
    input for this call only; the handle is removed after the encoder ran."""

    def __init__(self, dim):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(3))
        self.prompt = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        handle = self.blocks[1].register_forward_pre_hook(lambda mod, args: (args[0] + self.prompt,))
        for blk in self.blocks:
            x = torch.relu(blk(x))
        handle.remove()
        return x.mean(1)
