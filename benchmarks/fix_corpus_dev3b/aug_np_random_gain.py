# spec: {"model": "aug_np_random_gain.py:WaveformEncoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 16], "init": "randn"}], "mode": "train"}
import numpy as np
from torch import nn


class WaveformEncoder(nn.Module):
    """Speech front end with on-the-fly gain augmentation drawn from numpy (ESPnet-style scripts)."""

    def __init__(self, n, low_db=-6.0, high_db=6.0):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.low_db = low_db
        self.high_db = high_db

    def forward(self, wav):
        if self.training:
            gain_db = np.random.uniform(self.low_db, self.high_db)
            wav = wav * (10.0 ** (gain_db / 20.0))
        return self.proj(wav).tanh()
