# spec: {"model": "vit_salient_tokens.py:SalientTokenViT", "init": {"args": [16, 4]}, "inputs": [{"tensor": [2, 9, 16]}]}
import torch
from torch import nn


class SalientTokenViT(nn.Module):
    """A ViT head that also returns its salient patch tokens for visualisation (attention-rollout demos)."""

    def __init__(self, dim, num_classes, thresh=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn_score = nn.Linear(dim, 1)
        self.head = nn.Linear(dim, num_classes)
        self.thresh = thresh

    def forward(self, tokens):
        tokens = self.norm(tokens)
        cls, patches = tokens[:, 0], tokens[:, 1:]
        keep = self.attn_score(patches).squeeze(-1) > self.thresh
        salient = patches[keep]
        return self.head(cls), salient
