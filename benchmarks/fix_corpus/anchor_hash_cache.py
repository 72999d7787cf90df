# spec: {"model": "anchor_hash_cache.py:AnchorHead", "inputs": [{"tensor": [2, 8, 6, 6]}], "calls": 3}
import hashlib

import torch
from torch import nn


class AnchorHead(nn.Module):
    """An anchor-based head that caches its anchor grid under an md5 of the feature size (mmdet-style)."""

    def __init__(self, c=8, num_anchors=3, stride=8):
        super().__init__()
        self.cls = nn.Conv2d(c, num_anchors, 1)
        self.reg = nn.Conv2d(c, num_anchors * 4, 1)
        self.stride = stride
        self.num_anchors = num_anchors
        self._grids = {}

    def _anchors(self, h, w):
        key = hashlib.md5(f"{h}x{w}@{self.stride}".encode("utf-8")).hexdigest()
        if key not in self._grids:
            ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            centers = torch.stack([xs, ys], -1).float().add(0.5).mul(self.stride)
            self._grids[key] = centers.view(h * w, 1, 2).expand(h * w, self.num_anchors, 2).reshape(-1, 2)
        return self._grids[key]

    def forward(self, feat):
        n, _, h, w = feat.shape
        centers = self._anchors(h, w)
        deltas = self.reg(feat).permute(0, 2, 3, 1).reshape(n, -1, 4)
        boxes = torch.cat([centers - deltas[..., :2].exp(), centers + deltas[..., 2:].exp()], -1)
        return self.cls(feat).flatten(1), boxes
