# spec: {"model": "lens25_zero_pad_frames.py:SpecAugFrontend", "init": {"args": [20]}, "inputs": [{"tensor": [3, 11, 20]}, {"tensor": [3], "dtype": "int64", "data": [11, 7, 2]}]}
import torch
from torch import nn


class SpecAugFrontend(nn.Module):
    """A speechbrain-like feature normaliser: global CMVN on the features, the padding frames of each
    utterance set back to zero one utterance at a time, then a conv over time."""

    def __init__(self, n_feats):
        super().__init__()
        self.register_buffer("mean", torch.linspace(-0.5, 0.5, n_feats))
        self.register_buffer("istd", torch.linspace(0.5, 1.5, n_feats))
        self.conv = nn.Conv1d(n_feats, n_feats, 3, padding=1)

    def forward(self, feats, feat_lens):
        x = (feats - self.mean) * self.istd
        x = x.clone()
        for b in range(x.shape[0]):
            length = int(feat_lens[b])
            x[b, length:] = 0.0
        return self.conv(x.transpose(1, 2)).transpose(1, 2)
