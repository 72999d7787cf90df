# spec: {"model": "depth_midas_scale_shift_align.py:ScaleShiftInvariantLoss", "init": {"args": []}, "inputs": [{"tensor": [2, 1, 16, 16]}, {"tensor": [2, 1, 16, 16], "init": "rand"}, {"tensor": [2, 1, 16, 16], "dtype": "bool", "p": 0.7}]}
import torch
from torch import nn


def compute_scale_and_shift(pred, target, mask):
    a00 = (mask * pred * pred).sum()
    a01 = (mask * pred).sum()
    a11 = mask.sum()
    b0 = (mask * pred * target).sum()
    b1 = (mask * target).sum()
    det = a00 * a11 - a01 * a01
    if det <= 0:
        return torch.ones(()), torch.zeros(())
    scale = (a11 * b0 - a01 * b1) / det
    shift = (-a01 * b0 + a00 * b1) / det
    return scale, shift


class ScaleShiftInvariantLoss(nn.Module):
    """MiDaS scale-and-shift-invariant depth loss, aligning each image by least squares over its valid pixels."""

    def __init__(self):
        super().__init__()
        self.refine = nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, pred, target, valid):
        pred = self.refine(pred)
        losses = []
        for p, t, m in zip(pred, target, valid):
            m = m.float()
            scale, shift = compute_scale_and_shift(p, t, m)
            aligned = scale * p + shift
            losses.append(((aligned - t).abs() * m).sum() / m.sum().clamp(min=1))
        return torch.stack(losses).mean()
