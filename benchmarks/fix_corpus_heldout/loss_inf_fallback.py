# spec: {"model": "loss_inf_fallback.py:FocalLoss", "inputs": [{"tensor": [8, 5]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import logging

import torch
import torch.nn.functional as F
from torch import nn

logger = logging.getLogger(__name__)


class FocalLoss(nn.Module):
    """Multi-class focal loss that logs and clamps an exploding value (detectron-style guard)."""

    def __init__(self, gamma=2.0, max_loss=50.0):
        super().__init__()
        self.gamma = gamma
        self.max_loss = max_loss

    def forward(self, logits, target):
        logp = F.log_softmax(logits, dim=-1).gather(1, target[:, None]).squeeze(1)
        loss = (-(1 - logp.exp()) ** self.gamma * logp).mean()
        if loss > self.max_loss:
            logger.warning("focal loss %.2f above %.1f, clamping", loss, self.max_loss)
            loss = loss.clamp(max=self.max_loss)
        return loss
