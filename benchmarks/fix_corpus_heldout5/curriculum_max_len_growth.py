# spec: {"model": "curriculum_max_len_growth.py:CurriculumSeqModel", "init": {"args": [10, 16]}, "inputs": [{"tensor": [2, 12, 10]}], "mode": "train", "calls": 4}
import torch
from torch import nn


class CurriculumSeqModel(nn.Module):
    """Sequence-length curriculum (Li et al., stability-efficiency): training crops grow every call."""

    def __init__(self, in_dim, dim, start_len=4, step=2, max_len=512):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.layer = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
        self.out = nn.Linear(dim, 1)
        self.cur_len = start_len
        self.step = step
        self.max_len = max_len

    def forward(self, x):
        if self.training:
            x = x[:, : self.cur_len]
            self.cur_len = min(self.cur_len + self.step, self.max_len)
        return self.out(self.layer(self.inp(x))).mean()
