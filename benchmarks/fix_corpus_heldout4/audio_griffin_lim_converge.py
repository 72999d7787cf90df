# spec: {"model": "audio_griffin_lim_converge.py:GriffinLimVocoder", "init": {"args": [64]}, "inputs": [{"tensor": [1, 20, 16]}]}
import torch
from torch import nn


class GriffinLimVocoder(nn.Module):
    """Mel-to-linear projection then Griffin-Lim phase recovery that stops once the spectral change is small."""

    def __init__(self, n_fft, n_iter=16, tol=1e-3):
        super().__init__()
        self.n_fft = n_fft
        self.hop = n_fft // 4
        self.n_iter = n_iter
        self.tol = tol
        self.mel_to_lin = nn.Linear(16, n_fft // 2 + 1)
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, mel):
        mag = self.mel_to_lin(mel).exp().transpose(1, 2)
        angles = torch.ones_like(mag, dtype=torch.complex64)
        prev = None
        for _ in range(self.n_iter):
            wav = torch.istft(mag * angles, self.n_fft, self.hop, window=self.window)
            spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
            angles = spec / spec.abs().clamp(min=1e-8)
            if prev is not None and (spec.abs() - prev).abs().mean() < self.tol:
                break
            prev = spec.abs()
        return torch.istft(mag * angles, self.n_fft, self.hop, window=self.window)
