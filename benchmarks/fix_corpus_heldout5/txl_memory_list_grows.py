# spec: {"model": "txl_memory_list_grows.py:RecurrentMemoryLayer", "init": {"args": [16]}, "inputs": [{"tensor": [1, 4, 16]}], "calls": 4}
import torch
from torch import nn


class RecurrentMemoryLayer(nn.Module):
    """Transformer-XL style segment recurrence: past segments' hidden states kept on self and attended to."""

    def __init__(self, dim, mem_segments=3):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.ff = nn.Linear(dim, dim)
        self.mem_segments = mem_segments
        self.mems = []

    def forward(self, segment):
        context = torch.cat(self.mems + [segment], dim=1)
        out, _ = self.attn(segment, context, context, need_weights=False)
        out = segment + self.ff(out)
        self.mems.append(out.detach())
        self.mems = self.mems[-self.mem_segments :]
        return out
