# spec: {"model": "clean_ckpt_reentrant_block.py:ReentrantCkptBlock", "init": {"args": [8]}, "inputs": [{"tensor": [3, 8]}]}
from torch import nn
from torch.utils.checkpoint import checkpoint


class ReentrantCkptBlock(nn.Module):
    """Transformer-style block with activation checkpointing of the MLP (older code passing
    use_reentrant=True), run here in eval."""

    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + checkpoint(self.mlp, self.norm(x), use_reentrant=True)
