# spec: {"model": "asr_first_voiced_frame.py:FirstVoiced", "inputs": [{"tensor": [12, 6]}]}
import torch
from torch import nn


class FirstVoiced(nn.Module):
    """Voice activity: the first frame whose energy passes a threshold (`torch.nonzero(...)[0]`),
    its feature read out (ESPnet/torchaudio recipe style)."""

    def __init__(self, dim=6, thresh=0.0):
        super().__init__()
        self.energy = nn.Linear(dim, 1)
        self.thresh = thresh

    def forward(self, feats):
        e = self.energy(feats).squeeze(-1)
        voiced = e > self.thresh
        start = torch.nonzero(voiced)[0]
        return feats[start] * e[start].unsqueeze(-1)
