# spec: {"model": "c4_mel_frontend_buffers.py:LogMelFrontend", "init": {"kwargs": {"sample_rate": 8000, "n_fft": 64, "n_mels": 10}}, "inputs": [{"tensor": [2, 33, 17]}], "calls": 3}
import math

import torch
from torch import nn


def hz_to_mel(freq):
    return 2595.0 * math.log10(1.0 + freq / 700.0)


def mel_filterbank(n_freqs, f_min, f_max, n_mels, sample_rate):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min, m_max = hz_to_mel(f_min), hz_to_mel(f_max)
    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    return torch.clamp(torch.min(down_slopes, up_slopes), min=0.0)


class LogMelFrontend(nn.Module):
    """Whisper/ESPnet-style log-mel front end over a power spectrogram: the filterbank made at
    init and kept as a buffer, a log with a floor, dynamic-range compression to ``max - 8``
    per utterance, per-feature mean normalisation chosen by a flag."""

    def __init__(self, sample_rate=16000, n_fft=400, n_mels=80, f_min=0.0, f_max=None, log_floor=1e-10, normalize="utterance"):
        super().__init__()
        f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.register_buffer("fb", mel_filterbank(n_fft // 2 + 1, f_min, f_max, n_mels, sample_rate))
        self.log_floor = log_floor
        self.normalize = normalize

    def forward(self, power_spec):
        # (batch, freq, time) -> (batch, n_mels, time)
        mel = torch.matmul(power_spec.transpose(-1, -2), self.fb).transpose(-1, -2)
        log_spec = torch.clamp(mel, min=self.log_floor).log10()
        log_spec = torch.maximum(log_spec, log_spec.amax(dim=(-2, -1), keepdim=True) - 8.0)
        log_spec = (log_spec + 4.0) / 4.0
        if self.normalize == "utterance":
            log_spec = log_spec - log_spec.mean(dim=-1, keepdim=True)
        elif self.normalize == "global":
            log_spec = (log_spec - log_spec.mean()) / (log_spec.std() + 1e-5)
        return log_spec
