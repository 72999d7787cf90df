# spec: {"model": "audio_random_gain_augment.py:KeywordSpotter", "init": {"args": [12]}, "inputs": [{"tensor": [4, 1, 1600]}], "mode": "train"}
import random

import torch
from torch import nn


class RandomGain(nn.Module):
    def __init__(self, min_db=-6.0, max_db=6.0, p=0.5):
        super().__init__()
        self.min_db, self.max_db, self.p = min_db, max_db, p

    def forward(self, wav):
        if self.training and random.random() < self.p:
            gain_db = random.uniform(self.min_db, self.max_db)
            wav = wav * (10 ** (gain_db / 20))
        return wav


class KeywordSpotter(nn.Module):
    """Keyword-spotting 1-D CNN with a torch-audiomentations-like random gain applied inside forward while training."""

    def __init__(self, n_keywords):
        super().__init__()
        self.aug = RandomGain()
        self.net = nn.Sequential(
            nn.Conv1d(1, 16, 80, stride=16), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
            nn.Linear(32, n_keywords),
        )

    def forward(self, wav):
        return self.net(self.aug(wav))
