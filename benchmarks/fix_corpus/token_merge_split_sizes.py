# spec: {"model": "token_merge_split_sizes.py:TokenKeeper", "inputs": [{"tensor": [2, 16, 8], "init": "randn"}]}
import torch
from einops import rearrange
from torch import nn


class TokenKeeper(nn.Module):
    """Keeps the informative tokens of each image (EViT-style) and returns them per image:
    the per-image counts are read with `.tolist()` as split sizes."""

    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.score = nn.Linear(dim, 1)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        s = self.score(x).squeeze(-1)
        keep = s > s.mean(dim=1, keepdim=True)
        counts = keep.sum(dim=1)
        kept = self.proj(x[keep])
        return rearrange(kept, "n (h d) -> n h d", h=self.heads).split(counts.tolist())
