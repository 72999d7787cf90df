# spec: {"model": "vit_interp_pos_embed_sizes.py:FlexiViTEncoder", "inputs": [{"tensor": [1, 3, 32, 32]}], "variants": [{"inputs": [{"tensor": [1, 3, 48, 48]}]}, {"inputs": [{"tensor": [1, 3, 64, 32]}]}]}
import math

import torch
import torch.nn.functional as F
from torch import nn


def resize_pos_embed(pos_embed, grid_hw):
    n = pos_embed.shape[1]
    side = int(math.sqrt(n))
    grid = pos_embed.reshape(1, side, side, -1).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=grid_hw, mode="bicubic", align_corners=False)
    return grid.permute(0, 2, 3, 1).flatten(1, 2)


class FlexiViTEncoder(nn.Module):
    """ViT patch encoder that interpolates its position embedding to any input resolution (DINO/timm habit)."""

    def __init__(self, dim=32, patch=8, base_grid=4):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos_embed = nn.Parameter(torch.randn(1, base_grid * base_grid, dim) * 0.02)
        self.block = nn.TransformerEncoderLayer(dim, 4, 64, batch_first=True)

    def forward(self, images):
        x = self.patch_embed(images)
        gh, gw = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2) + resize_pos_embed(self.pos_embed, (gh, gw))
        return self.block(x).mean(1)
