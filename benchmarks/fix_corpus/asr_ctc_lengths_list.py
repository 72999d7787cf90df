# spec: {"model": "asr_ctc_lengths_list.py:ConformerLiteCTC", "init": {"args": [20, 12]}, "inputs": [{"tensor": [3, 40, 20]}, {"tensor": [3], "dtype": "int64", "data": [40, 32, 24]}, {"tensor": [3, 8], "dtype": "int64", "init": "randint", "low": 1, "high": 12}, {"tensor": [3], "dtype": "int64", "data": [8, 6, 5]}]}
import torch
import torch.nn.functional as F
from torch import nn


class ConformerLiteCTC(nn.Module):
    """A conv-subsampling acoustic encoder trained with CTC; lengths are handed to the loss as lists."""

    def __init__(self, n_mels, vocab):
        super().__init__()
        self.subsample = nn.Conv1d(n_mels, 32, kernel_size=3, stride=2, padding=1)
        self.encoder = nn.Sequential(nn.Conv1d(32, 32, 5, padding=2), nn.GELU(), nn.Conv1d(32, 32, 5, padding=2))
        self.out = nn.Linear(32, vocab)

    def forward(self, feats, feat_lens, targets, target_lens):
        x = self.subsample(feats.transpose(1, 2))
        x = self.encoder(torch.relu(x)).transpose(1, 2)
        log_probs = self.out(x).log_softmax(-1).transpose(0, 1)
        out_lens = [(n + 1) // 2 for n in feat_lens.tolist()]
        return F.ctc_loss(log_probs, targets, out_lens, target_lens.tolist(), blank=0, zero_infinity=True)
