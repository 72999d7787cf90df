# spec: {"model": "rc_vit_posemb_interp.py:PatchEmbedViT", "init": {"args": [3, 32, 4]}, "inputs": [{"tensor": [2, 3, 16, 16]}], "variants": [{"inputs": [{"tensor": [2, 3, 24, 24]}]}, {"inputs": [{"tensor": [2, 3, 16, 16]}]}, {"inputs": [{"tensor": [2, 3, 16, 32]}]}]}
import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbedViT(nn.Module):
    """A DINO/timm-like patch embedding whose position embedding is interpolated to the image
    grid, keeping the interpolated tables in a dict keyed by the grid size."""

    def __init__(self, in_ch, dim, patch, base_grid=4):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(in_ch, dim, patch, stride=patch)
        self.pos_embed = nn.Parameter(torch.randn(1, dim, base_grid, base_grid) * 0.02)
        self.interp_cache = {}

    def interpolate_pos(self, gh, gw):
        if (gh, gw) in self.interp_cache:
            return self.interp_cache[(gh, gw)]
        pe = F.interpolate(self.pos_embed, size=(gh, gw), mode="bicubic", align_corners=False)
        self.interp_cache[(gh, gw)] = pe
        return pe

    def forward(self, img):
        x = self.proj(img)
        gh, gw = x.shape[-2:]
        x = x + self.interpolate_pos(gh, gw)
        return x.flatten(2).transpose(1, 2)
