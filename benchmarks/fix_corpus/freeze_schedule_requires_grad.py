# spec: {"model": "freeze_schedule_requires_grad.py:GradualUnfreeze", "inputs": [{"tensor": [4, 8]}], "mode": "train", "calls": 3}
from torch import nn


class GradualUnfreeze(nn.Module):
    """Fine-tuning with a frozen backbone that is unfrozen after a number of steps (ULMFiT-style schedule)."""

    def __init__(self, unfreeze_at=2):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16))
        self.head = nn.Linear(16, 2)
        self.unfreeze_at = unfreeze_at
        self.step = 0

    def forward(self, x):
        trainable = self.step >= self.unfreeze_at
        for p in self.backbone.parameters():
            p.requires_grad_(trainable)
        self.step += 1
        return self.head(self.backbone(x))
