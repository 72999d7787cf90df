# spec: {"model": "aug_mixup_beta_after_log.py:MixupStep", "init": {"args": [8, 3]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4, 3]}], "mode": "train"}
import logging
import random

from torch import nn

logger = logging.getLogger(__name__)


class MixupStep(nn.Module):
    """Mixup with the mixing weight drawn from Python's RNG, logged, then applied (recipe code)."""

    def __init__(self, dim, classes, alpha=0.4):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.alpha = alpha

    def forward(self, x, y):
        lam = random.betavariate(self.alpha, self.alpha)
        logger.warning("mixup lam=%s batch=%s", lam, x.shape[0])
        mixed_x = lam * x + (1.0 - lam) * x.flip(0)
        mixed_y = lam * y + (1.0 - lam) * y.flip(0)
        return -(mixed_y * self.fc(mixed_x).log_softmax(-1)).sum(-1).mean()
