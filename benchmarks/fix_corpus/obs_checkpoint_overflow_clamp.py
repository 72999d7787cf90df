# spec: {"model": "obs_checkpoint_overflow_clamp.py:CheckpointedBlock", "init": {"args": [16]}, "inputs": [{"tensor": [2, 5, 16], "init": "randn"}], "mode": "train"}
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    """transformers' gradient-checkpointed layer with T5's fp16 overflow guard: the hidden
    states come back from ``checkpoint(...)`` and are clamped when they overflow."""

    def __init__(self, dim, limit=1e4):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.limit = limit

    def forward(self, hidden):
        hidden = checkpoint(self.ff, hidden, use_reentrant=False)
        if hidden.abs().max() > self.limit:
            hidden = hidden.clamp(-self.limit, self.limit)
        return hidden
