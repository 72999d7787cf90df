"""ViT patch embedding that reads the image size as ints and interpolates positions (timm style)."""

import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, patch: int = 4, dim: int = 16, grid: int = 4) -> None:
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, patch)
        self.pos = nn.Parameter(torch.zeros(1, dim, grid, grid))

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        B, C, H, W = img.shape
        x = self.proj(img)
        pos = F.interpolate(self.pos, size=(H // self.patch, W // self.patch), mode="bilinear")
        return (x + pos).flatten(2).transpose(1, 2)
