# spec: {"model": "audio_mel_db_float_max.py:LogMelFrontend", "inputs": [{"tensor": [2, 40, 50], "init": "rand"}]}
import torch
from torch import nn


def power_to_db(spec, top_db=80.0, amin=1e-10):
    # librosa.power_to_db, ported line by line
    log_spec = 10.0 * torch.log10(torch.clamp(spec, min=amin))
    max_db = float(log_spec.max())
    return torch.clamp(log_spec, min=max_db - top_db)


class LogMelFrontend(nn.Module):
    """Audio-tagging front end: power mel spectrogram to dB (librosa port), then a small CNN."""

    def __init__(self, num_tags=10):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(1))
        self.fc = nn.Linear(8, num_tags)

    def forward(self, mel_power):
        db = power_to_db(mel_power)
        return self.fc(self.cnn(db[:, None]).flatten(1))
