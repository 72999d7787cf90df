# spec: {"model": "stereo_psm_loss.py:StackedHourglassLoss", "inputs": [{"tensor": [2, 4, 16, 16]}, {"tensor": [2, 16, 16], "init": "rand"}], "mode": "train"}
import torch
import torch.nn.functional as F
from torch import nn


class StackedHourglassLoss(nn.Module):
    """Three stacked disparity outputs supervised on pixels with valid disparity, as in PSMNet's training step."""

    def __init__(self, maxdisp=0.9):
        super().__init__()
        self.maxdisp = maxdisp
        self.heads = nn.ModuleList([nn.Conv2d(4, 1, 3, padding=1) for _ in range(3)])

    def forward(self, cost, disp_true):
        out1, out2, out3 = (torch.sigmoid(h(cost)).squeeze(1) for h in self.heads)
        mask = disp_true < self.maxdisp
        mask.detach_()
        loss = (
            0.5 * F.smooth_l1_loss(out1[mask], disp_true[mask])
            + 0.7 * F.smooth_l1_loss(out2[mask], disp_true[mask])
            + F.smooth_l1_loss(out3[mask], disp_true[mask])
        )
        return out3, loss
