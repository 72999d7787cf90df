# spec: {"model": "c4_stft_spectrogram.py:Spectrogram", "init": {"kwargs": {"n_fft": 64, "hop_length": 16}}, "inputs": [{"tensor": [2, 400]}], "calls": 3}
import torch
from torch import nn


class Spectrogram(nn.Module):
    """torchaudio's ``Spectrogram`` without torchaudio: a Hann window registered as a buffer,
    ``torch.stft`` with ``return_complex=True``, power taken from ``abs()``, optional
    normalisation by the window's energy decided at construction."""

    def __init__(self, n_fft=400, win_length=None, hop_length=None, power=2.0, normalized=False, center=True, pad_mode="reflect"):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", torch.hann_window(self.win_length))
        self.power = power
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode

    def forward(self, waveform):
        shape = waveform.size()
        waveform = waveform.reshape(-1, shape[-1])
        spec_f = torch.stft(
            input=waveform,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            window=self.window,
            center=self.center,
            pad_mode=self.pad_mode,
            normalized=False,
            onesided=True,
            return_complex=True,
        )
        spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
        if self.normalized:
            spec_f /= self.window.pow(2.0).sum().sqrt()
        if self.power is not None:
            if self.power == 1.0:
                return spec_f.abs()
            return spec_f.abs().pow(self.power)
        return spec_f
