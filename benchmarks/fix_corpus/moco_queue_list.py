# spec: {"model": "moco_queue_list.py:QueueContrast", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}, {"tensor": [4, 16]}], "calls": 4}
import torch
import torch.nn.functional as F
from torch import nn


class QueueContrast(nn.Module):
    """MoCo-style InfoNCE with the negative queue kept as a Python list of past key batches."""

    def __init__(self, dim, max_batches=8, tau=0.07):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.queue = []
        self.max_batches = max_batches
        self.tau = tau

    def forward(self, q, k):
        q = F.normalize(self.proj(q), dim=-1)
        k = F.normalize(self.proj(k), dim=-1).detach()
        logits = [(q * k).sum(-1, keepdim=True)]
        if self.queue:
            logits.append(q @ torch.cat(self.queue).T)
        logits = torch.cat(logits, dim=1) / self.tau
        self.queue.append(k)
        if len(self.queue) > self.max_batches:
            self.queue.pop(0)
        return F.cross_entropy(logits, torch.zeros(len(q), dtype=torch.long))
