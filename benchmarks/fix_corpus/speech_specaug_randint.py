# spec: {"model": "speech_specaug_randint.py:SpecAugEncoder", "init": {"args": [20]}, "inputs": [{"tensor": [2, 50, 20]}], "mode": "train"}
import random

import torch
from torch import nn


class SpecAugEncoder(nn.Module):
    """An LSTM acoustic encoder with SpecAugment time and frequency masks drawn with Python's random (training only)."""

    def __init__(self, n_mels, max_f=4, max_t=8):
        super().__init__()
        self.max_f = max_f
        self.max_t = max_t
        self.rnn = nn.LSTM(n_mels, 16, batch_first=True)

    def forward(self, feats):
        if self.training:
            feats = feats.clone()
            f = random.randint(0, self.max_f)
            f0 = random.randint(0, feats.shape[2] - f)
            feats[:, :, f0 : f0 + f] = 0
            t = random.randint(0, self.max_t)
            t0 = random.randint(0, feats.shape[1] - t)
            feats[:, t0 : t0 + t] = 0
        out, _ = self.rnn(feats)
        return out
