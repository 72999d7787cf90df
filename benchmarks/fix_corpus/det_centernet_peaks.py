# spec: {"model": "det_centernet_peaks.py:CenterNetDecoder", "init": {"args": [16, 3]}, "inputs": [{"tensor": [1, 16, 24, 24]}]}
import torch
import torch.nn.functional as F
from torch import nn


def _nms(heat, kernel=3):
    pad = (kernel - 1) // 2
    hmax = F.max_pool2d(heat, (kernel, kernel), stride=1, padding=pad)
    keep = (hmax == heat).float()
    return heat * keep


class CenterNetDecoder(nn.Module):
    """CenterNet-style heads; decoding keeps every local peak above a score threshold."""

    def __init__(self, in_ch, num_classes, thresh=0.3):
        super().__init__()
        self.hm = nn.Conv2d(in_ch, num_classes, 3, padding=1)
        self.wh = nn.Conv2d(in_ch, 2, 3, padding=1)
        self.thresh = thresh

    def forward(self, feat):
        heat = _nms(self.hm(feat).sigmoid())
        wh = self.wh(feat)
        cls, ys, xs = (heat[0] > self.thresh).nonzero(as_tuple=True)
        scores = heat[0, cls, ys, xs]
        w, h = wh[0, 0, ys, xs], wh[0, 1, ys, xs]
        boxes = torch.stack([xs - w / 2, ys - h / 2, xs + w / 2, ys + h / 2], dim=1)
        return boxes, scores, cls
