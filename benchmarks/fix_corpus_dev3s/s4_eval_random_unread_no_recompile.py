# spec: {"model": "s4_eval_random_unread_no_recompile.py:SpecAugmentEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [2, 10, 8]}], "calls": 3, "mode": "eval"}
import random

from torch import nn


class SpecAugmentEncoder(nn.Module):
    """Time masking drawn with `random` only in training; served in eval, the draw never runs."""

    def __init__(self, dim, max_mask=3):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.max_mask = max_mask

    def forward(self, feats):
        if self.training:
            width = random.randint(0, self.max_mask)
            feats = feats.clone()
            feats[:, :width] = 0.0
        return self.encoder(feats).relu()
