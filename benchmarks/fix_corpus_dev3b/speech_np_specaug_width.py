# spec: {"model": "speech_np_specaug_width.py:SpecAugment", "init": {"args": [20]}, "inputs": [{"tensor": [2, 30, 20], "init": "randn"}], "mode": "train"}
import numpy as np
import torch
from torch import nn


class SpecAugment(nn.Module):
    """Frequency masking with the band drawn by numpy's RNG, then a projection (speech recipes)."""

    def __init__(self, n_mels, max_width=6):
        super().__init__()
        self.max_width = max_width
        self.proj = nn.Linear(n_mels, n_mels)

    def forward(self, feats):
        if self.training:
            width = np.random.randint(1, self.max_width)
            start = np.random.randint(0, feats.shape[-1] - width)
            mask = torch.ones(feats.shape[-1])
            mask[start : start + width] = 0.0
            feats = feats * mask
        return self.proj(feats)
