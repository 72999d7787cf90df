# spec: {"model": "simmim_masked_recon_l1.py:SimMIMHead", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}, {"tensor": [2, 10, 16]}, {"tensor": [2, 10], "dtype": "bool", "p": 0.5}]}
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class SimMIMHead(nn.Module):
    """SimMIM style: a light decoder over the masked tokens ([B, T, D], a [B, T] mask), an L1
    reconstruction of their target features averaged over every element."""

    def __init__(self, dim):
        super().__init__()
        self.block = Block(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens, target, mask):
        masked = tokens[mask]
        recon = self.proj(self.block(masked))
        err = (recon - target[mask]).abs()
        return err.mean()
