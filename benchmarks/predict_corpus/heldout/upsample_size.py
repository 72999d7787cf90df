"""A decoder head that upsamples to a target size given per call (segmentation style)."""

import torch
import torch.nn.functional as F
from torch import nn


class SegHead(nn.Module):
    def __init__(self, ch: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.cls = nn.Conv2d(ch, classes, 1)

    def forward(self, feats: torch.Tensor, out_size: int = 16) -> torch.Tensor:
        logits = self.cls(feats)
        return F.interpolate(logits, size=(out_size, out_size), mode="bilinear", align_corners=False)
