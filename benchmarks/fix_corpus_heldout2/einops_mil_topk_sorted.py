# spec: {"model": "einops_mil_topk_sorted.py:TopInstancePool", "init": {"args": [16, 4]}, "inputs": [{"tensor": [1, 3, 32, 32]}]}
import torch
from einops import rearrange
from torch import nn


class TopInstancePool(nn.Module):
    """Multiple-instance learning over image tiles: score tiles, keep the k best (histopathology MIL style)."""

    def __init__(self, dim, k, tile=8):
        super().__init__()
        self.tile = tile
        self.embed = nn.Linear(3 * tile * tile, dim)
        self.score = nn.Linear(dim, 1)
        self.k = k
        self.cls = nn.Linear(dim, 2)

    def forward(self, slide):
        tiles = rearrange(slide, "b c (h p1) (w p2) -> b (h w) (c p1 p2)", p1=self.tile, p2=self.tile)
        feats = torch.relu(self.embed(tiles[0]))
        scores = self.score(feats).squeeze(-1)
        ranked = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
        top = feats[ranked[: self.k]]
        return self.cls(top.mean(0, keepdim=True))
