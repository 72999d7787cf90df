# spec: {"model": "audio_voiced_span_pool.py:VoicedSpanPooling", "init": {"args": [20, 8]}, "inputs": [{"tensor": [2, 30, 20]}]}
import torch
from torch import nn


class VoicedSpanPooling(nn.Module):
    """Keyword-spotting head: features at the first and last voiced frame (energy VAD)."""

    def __init__(self, n_mels, n_keywords, threshold=0.0):
        super().__init__()
        self.proj = nn.Linear(n_mels, 32)
        self.cls = nn.Linear(64, n_keywords)
        self.threshold = threshold

    def forward(self, mels):
        feats = torch.relu(self.proj(mels))
        energy = mels.pow(2).mean(dim=(0, 2))
        voiced = energy > self.threshold
        onset = torch.nonzero(voiced)[0]
        offset = torch.nonzero(voiced)[-1]
        pooled = torch.cat([feats[:, onset].squeeze(1), feats[:, offset].squeeze(1)], dim=-1)
        return self.cls(pooled)
