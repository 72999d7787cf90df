# spec: {"model": "cb_loss_clip_counter.py:ClippedRegressionLoss", "inputs": [{"tensor": [8, 4]}, {"tensor": [8, 4]}]}
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ClippedRegressionLoss(nn.Module):
    """A detection-style box regression loss that clips outliers and counts how often."""

    def __init__(self, clip=0.5):
        super().__init__()
        self.head = nn.Linear(4, 4)
        self.clip = clip
        self.n_clipped = 0

    def forward(self, pred, target):
        loss = (self.head(pred) - target).pow(2)
        if (loss > self.clip).any():
            logger.info("clipping %d loss values", int((loss > self.clip).sum()))
            self.n_clipped += 1
            loss = loss.clamp(max=self.clip)
        return loss.mean()
