# spec: {"model": "s3_fill_asr_pad_mean.py:ContextPad", "init": {"args": [20, 16]}, "inputs": [{"tensor": [2, 12, 20]}]}
import torch
from torch import nn


class ContextPad(nn.Module):
    """ESPnet-like frame stacking front-end: the features are padded in time with their global
    mean (`float()`), through `new_full` with the fill value as a keyword, before a conv."""

    def __init__(self, feat_dim, dim, context=2):
        super().__init__()
        self.conv = nn.Conv1d(feat_dim, dim, 2 * context + 1)
        self.context = context

    def forward(self, feats):
        b, t, d = feats.shape
        pad_value = float(feats.mean())
        padded = feats.new_full((b, t + 2 * self.context, d), fill_value=pad_value)
        padded[:, self.context : self.context + t] = feats
        return self.conv(padded.transpose(1, 2)).transpose(1, 2)
