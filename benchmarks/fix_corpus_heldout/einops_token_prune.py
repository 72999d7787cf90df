# spec: {"model": "einops_token_prune.py:PatchPruner", "init": {"args": [3, 16, 4]}, "inputs": [{"tensor": [2, 3, 16, 16]}]}
import torch
from einops import rearrange
from torch import nn


class PatchPruner(nn.Module):
    """An einops patch embedding that drops low-norm patches before pooling (token-pruning papers)."""

    def __init__(self, channels, dim, patch):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(channels * patch * patch, dim)

    def forward(self, img):
        patches = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=self.patch, p2=self.patch)
        tokens = self.embed(patches)
        norms = tokens.norm(dim=-1)
        keep = norms >= norms.median()
        kept = tokens[keep]
        counts = keep.sum(1)
        return rearrange(kept, "n d -> n d").split(counts.tolist())
