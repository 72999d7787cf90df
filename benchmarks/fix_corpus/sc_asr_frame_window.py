# spec: {"model": "sc_asr_frame_window.py:FrameWindowPool", "init": {"args": [16, 8]}, "inputs": [{"tensor": [3, 20, 16]}, {"tensor": [3], "dtype": "int64", "data": [2, 4, 3]}, {"tensor": [3], "dtype": "int64", "data": [15, 18, 11]}]}
import torch
from torch import nn


class FrameWindowPool(nn.Module):
    """CTC/length trimming (ESPnet-like): frames between the earliest onset and the latest end
    of the batch, projected and summed per utterance."""

    def __init__(self, dim, n_out):
        super().__init__()
        self.proj = nn.Linear(dim, n_out)

    def forward(self, feats, onsets, ends):
        start = int(onsets.min())
        end = int(ends.max())
        feats = feats[:, start:end]
        out = torch.tanh(self.proj(feats))
        return out.sum(1)
