# spec: {"model": "vit_token_prune_counts_print.py:TokenPruner", "inputs": [{"tensor": [2, 16, 8], "init": "randn"}], "config": {"capture_scalar_outputs": true, "capture_dynamic_output_shape_ops": true}}
import torch
from einops import rearrange
from torch import nn


class TokenPruner(nn.Module):
    """DynamicViT-style token pruning (per-image counts read once with `.tolist()`), from a
    project that already sets `capture_scalar_outputs` and `capture_dynamic_output_shape_ops`,
    with its progress print left in."""

    def __init__(self, dim=8, heads=2, ratio=0.5):
        super().__init__()
        self.heads = heads
        self.ratio = ratio
        self.score = nn.Linear(dim, 1)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        s = self.score(x).squeeze(-1).sigmoid()
        keep = s > s.mean(dim=1, keepdim=True) * self.ratio
        counts = keep.sum(dim=1).tolist()
        print(f"kept {int(keep.sum())} tokens: {counts}")
        tokens = x[keep]
        per_image = torch.split(tokens, counts)
        pooled = torch.stack([t.mean(0) if len(t) else t.new_zeros(t.shape[-1]) for t in per_image])
        y = rearrange(self.proj(x), "b n (h d) -> b h n d", h=self.heads).softmax(-1)
        return rearrange(y, "b h n d -> b n (h d)") + pooled[:, None]
