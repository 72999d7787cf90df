# spec: {"model": "cmp_seg_empty_mask_guard.py:MaskHead", "init": {"args": [8]}, "inputs": [{"tensor": [1, 8, 12, 12]}]}
import torch
from torch import nn


class MaskHead(nn.Module):
    """Mask2Former-like mask head: a predicted mask whose area is under a minimum is dropped (zeroed)."""

    def __init__(self, ch, min_area=40):
        super().__init__()
        self.conv = nn.Conv2d(ch, 1, 3, padding=1)
        self.min_area = min_area

    def forward(self, x):
        logits = self.conv(x)
        mask = logits > 0
        area = int(mask.sum())
        out = logits.sigmoid() * mask
        if area < self.min_area:
            out = torch.zeros_like(out)
        return out, logits
