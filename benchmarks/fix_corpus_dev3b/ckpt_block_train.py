# spec: {"model": "ckpt_block_train.py:CheckpointedStack", "init": {"args": [12, 3]}, "inputs": [{"tensor": [2, 5, 12]}], "mode": "train"}
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedStack(nn.Module):
    """A pre-norm MLP stack with activation checkpointing during training (timm/HF style)."""

    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
            for _ in range(depth)
        )
        self.grad_checkpointing = True

    def forward(self, x):
        for blk in self.blocks:
            if self.grad_checkpointing and self.training:
                x = x + checkpoint(blk, x, use_reentrant=False)
            else:
                x = x + blk(x)
        return x
