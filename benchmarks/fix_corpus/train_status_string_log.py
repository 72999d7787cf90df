# spec: {"model": "train_status_string_log.py:LossWithStatus", "inputs": [{"tensor": [8, 10]}, {"tensor": [8], "dtype": "int64", "init": "randint", "low": 0, "high": 5}], "mode": "train"}
import logging

import torch.nn.functional as F
from torch import nn

logger = logging.getLogger(__name__)


class LossWithStatus(nn.Module):
    """A classifier's training step that labels the batch for its log line (a status string
    chosen by the loss value), as hand-written training loops do."""

    def __init__(self, dim=10, classes=5, alarm=5.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, classes))
        self.alarm = alarm

    def forward(self, x, y):
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        if loss > self.alarm:
            status = "diverging"
        else:
            status = "ok"
        logger.debug("batch loss status: %s", status)
        return loss
