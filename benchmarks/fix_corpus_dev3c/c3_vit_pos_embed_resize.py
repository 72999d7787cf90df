# spec: {"model": "c3_vit_pos_embed_resize.py:VisionTransformerStem", "init": {"kwargs": {"img_size": 32, "patch_size": 8, "embed_dim": 24}}, "inputs": [{"tensor": [2, 3, 48, 48]}], "calls": 3}
import math

import torch
import torch.nn.functional as F
from torch import nn


class VisionTransformerStem(nn.Module):
    """ViT patch embedding that resamples the position table when the image is not the trained size."""

    def __init__(self, img_size=224, patch_size=16, embed_dim=768):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        num_patches = (img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)

    def interpolate_pos_encoding(self, x, h, w):
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and h == w:
            return self.pos_embed
        class_pos = self.pos_embed[:, :1]
        patch_pos = self.pos_embed[:, 1:]
        dim = x.shape[-1]
        side = int(math.sqrt(N))
        patch_pos = patch_pos.reshape(1, side, side, dim).permute(0, 3, 1, 2)
        patch_pos = F.interpolate(patch_pos, size=(h, w), mode="bicubic", align_corners=False)
        patch_pos = patch_pos.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos, patch_pos), dim=1)

    def forward(self, x):
        B = x.shape[0]
        x = self.patch_embed(x)
        h, w = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(B, -1, -1), x), dim=1)
        return x + self.interpolate_pos_encoding(x, h, w)
