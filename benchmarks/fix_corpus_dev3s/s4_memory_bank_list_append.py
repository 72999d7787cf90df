# spec: {"model": "s4_memory_bank_list_append.py:MemoryAugmented", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3}
import torch
from torch import nn


class EpisodicMemory(nn.Module):
    def __init__(self, capacity=16):
        super().__init__()
        self.capacity = capacity
        self.slots = []

    def write(self, value):
        self.slots.append(value.detach())
        if len(self.slots) > self.capacity:
            self.slots.pop(0)


class MemoryAugmented(nn.Module):
    """Writes each batch's summary into a submodule's Python list of memory slots."""

    def __init__(self, dim):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.memory = EpisodicMemory()

    def forward(self, x):
        h = self.encoder(x)
        self.memory.write(h.mean(0))
        return h + torch.stack(self.memory.slots).mean(0)
