# spec: {"model": "tok_byte_level_encode.py:ByteCondEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}]}
import torch
from torch import nn


class ByteCondEncoder(nn.Module):
    """ByT5-like byte-level conditioning: the module's task string encoded to UTF-8 bytes in
    forward and embedded."""

    def __init__(self, dim, task="summarize: "):
        super().__init__()
        self.task = task
        self.byte_emb = nn.Embedding(259, dim)

    def forward(self, x):
        ids = torch.tensor(list(self.task.encode("utf-8"))) + 3
        return x + self.byte_emb(ids).sum(0)
