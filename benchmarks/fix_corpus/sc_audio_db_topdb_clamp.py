# spec: {"model": "sc_audio_db_topdb_clamp.py:LogMelFrontEnd", "init": {"args": [24, 6]}, "inputs": [{"tensor": [2, 24, 40]}]}
import torch
from torch import nn


class LogMelFrontEnd(nn.Module):
    """torchaudio AmplitudeToDB style: power spectrogram to dB, floored `top_db` below the peak."""

    def __init__(self, n_mels, n_classes, top_db=80.0):
        super().__init__()
        self.top_db = top_db
        self.proj = nn.Linear(n_mels, n_classes)

    def forward(self, spec):
        log_spec = 10.0 * torch.log10(torch.clamp(spec.abs() ** 2, min=1e-10))
        max_db = float(log_spec.amax())
        log_spec = torch.clamp(log_spec, min=max_db - self.top_db)
        return self.proj(log_spec.transpose(1, 2)).mean(1)
