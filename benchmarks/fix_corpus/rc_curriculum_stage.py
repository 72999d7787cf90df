# spec: {"model": "rc_curriculum_stage.py:CurriculumEncoder", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}], "calls": 5, "mode": "train"}
import torch
from torch import nn


class CurriculumEncoder(nn.Module):
    """Curriculum learning: the noise level of the augmentation grows with the number of
    training calls, in stages (Lightning-module style bookkeeping on self)."""

    def __init__(self, dim, stage_len=2, max_stage=3):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.stage_len = stage_len
        self.max_stage = max_stage
        self.seen = 0
        self.stage = 0

    def _noise_level(self):
        return 0.05 * self.stage

    def forward(self, x):
        self.seen += 1
        if self.seen % self.stage_len == 0 and self.stage < self.max_stage:
            self.stage += 1
        x = x + self._noise_level() * torch.ones_like(x)
        return self.proj(x).relu()
