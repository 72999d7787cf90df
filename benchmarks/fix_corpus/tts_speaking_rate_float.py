# spec: {"model": "tts_speaking_rate_float.py:DurationRegulator", "init": {"args": [16]}, "inputs": [{"tensor": [2, 10, 16]}, 1.0], "variants": [{"inputs": [{"tensor": [2, 10, 16]}, 1.25]}, {"inputs": [{"tensor": [2, 10, 16]}, 0.8]}]}
import torch
from torch import nn


class DurationRegulator(nn.Module):
    """FastSpeech-style duration predictor; inference takes a speaking-rate factor as a Python float."""

    def __init__(self, dim):
        super().__init__()
        self.predictor = nn.Sequential(nn.Conv1d(dim, dim, 3, padding=1), nn.ReLU(), nn.Conv1d(dim, 1, 1))

    def forward(self, phoneme_hidden, speaking_rate: float = 1.0):
        log_dur = self.predictor(phoneme_hidden.transpose(1, 2)).squeeze(1)
        durations = torch.clamp(torch.round(log_dur.exp() / speaking_rate), min=1.0)
        frames = durations.sum(-1, keepdim=True)
        return durations, frames
