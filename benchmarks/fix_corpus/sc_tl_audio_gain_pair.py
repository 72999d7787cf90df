# spec: {"model": "sc_tl_audio_gain_pair.py:PeakRmsGain", "init": {"args": [8]}, "inputs": [{"tensor": [2, 48]}]}
import torch
from torch import nn


class PeakRmsGain(nn.Module):
    """Speech front end: peak and RMS read as a pair, the waveform scaled to a target RMS and
    limited to the scaled peak."""

    def __init__(self, n_out, target_rms=0.1):
        super().__init__()
        self.target_rms = target_rms
        self.enc = nn.Conv1d(1, n_out, 3)

    def forward(self, wav):
        peak, rms = torch.stack([wav.abs().max(), wav.pow(2).mean().sqrt()]).tolist()
        gain = self.target_rms / (rms + 1e-8)
        wav = torch.clamp(wav * gain, min=-peak * gain, max=peak * gain)
        return self.enc(wav.unsqueeze(1)).mean(-1)
