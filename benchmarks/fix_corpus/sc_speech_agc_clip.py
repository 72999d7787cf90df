# spec: {"model": "sc_speech_agc_clip.py:AutoGain", "init": {"args": [16]}, "inputs": [{"tensor": [2, 64]}]}
import torch
from torch import nn


def peak_of(wav):
    return wav.abs().max().item()


class AutoGain(nn.Module):
    """Speech front end: automatic gain control to a target peak, clipped to the new peak."""

    def __init__(self, n_out, target=0.9, max_gain=10.0):
        super().__init__()
        self.target = target
        self.max_gain = max_gain
        self.enc = nn.Conv1d(1, n_out, 5, stride=2)

    def forward(self, wav):
        peak = peak_of(wav)
        gain = min(self.target / (peak + 1e-8), self.max_gain)
        lim = peak * gain
        wav = (wav * gain).clip(-lim, lim)
        return self.enc(wav.unsqueeze(1)).mean(-1)
