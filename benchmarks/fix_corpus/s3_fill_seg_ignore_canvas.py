# spec: {"model": "s3_fill_seg_ignore_canvas.py:CanvasHead", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8, 6, 6]}]}
import torch
import torch.nn.functional as F
from torch import nn


class CanvasHead(nn.Module):
    """mmseg-like head pasting its logits onto a larger canvas whose background is the median
    logit (read with `.item()` in a helper method, filled with `torch.full_like(..., dtype=)`)."""

    def __init__(self, dim, num_classes, pad=2):
        super().__init__()
        self.cls = nn.Conv2d(dim, num_classes, 1)
        self.pad = pad

    def background(self, logits):
        return logits.detach().median().item()

    def forward(self, feats):
        logits = self.cls(feats)
        p = self.pad
        big = F.pad(logits, (p, p, p, p))
        canvas = torch.full_like(big, self.background(logits), dtype=torch.float32)
        canvas[..., p:-p, p:-p] = logits
        return canvas.softmax(1)
