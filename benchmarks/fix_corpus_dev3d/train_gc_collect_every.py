# spec: {"model": "train_gc_collect_every.py:LongSeqModel", "init": {"args": [8]}, "inputs": [{"tensor": [2, 6, 8]}], "mode": "train"}
import gc

from torch import nn


class LongSeqModel(nn.Module):
    """Long-sequence model that calls the garbage collector in forward after the big
    attention (a memory workaround from a training script)."""

    def __init__(self, dim):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.ff = nn.Linear(dim, dim)

    def forward(self, x):
        h, _ = self.attn(x, x, x, need_weights=False)
        gc.collect()
        return self.ff(h + x)
