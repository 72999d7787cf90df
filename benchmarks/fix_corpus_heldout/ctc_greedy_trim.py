# spec: {"model": "ctc_greedy_trim.py:CTCHead", "init": {"args": [12, 6]}, "inputs": [{"tensor": [2, 20, 12]}, {"tensor": [2], "dtype": "int64", "data": [18, 11]}]}
import torch
from torch import nn


class CTCHead(nn.Module):
    """A CTC output head that subsamples by 2 and trims frames past the longest output length."""

    def __init__(self, dim, vocab):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        self.fc = nn.Linear(dim, vocab + 1)

    def forward(self, feats, feat_lens):
        h = self.conv(feats.transpose(1, 2)).transpose(1, 2)
        out_lens = (feat_lens + 1) // 2
        t_max = out_lens.max().item()
        logits = self.fc(h[:, :t_max])
        return logits.log_softmax(-1), out_lens
