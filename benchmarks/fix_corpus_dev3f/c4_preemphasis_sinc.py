# spec: {"model": "c4_preemphasis_sinc.py:WaveFrontend", "init": {"kwargs": {"out_channels": 6, "kernel_size": 15}}, "inputs": [{"tensor": [2, 1, 200]}], "calls": 3}
import math

import torch
import torch.nn.functional as F
from torch import nn


class PreEmphasis(nn.Module):
    """SpeechBrain/ECAPA pre-emphasis: a flipped FIR filter as a buffer, reflect pad, conv1d."""

    def __init__(self, coef=0.97):
        super().__init__()
        self.coef = coef
        self.register_buffer("flipped_filter", torch.FloatTensor([-self.coef, 1.0]).unsqueeze(0).unsqueeze(0))

    def forward(self, x):
        assert len(x.size()) == 3, "The number of dimensions of input tensor must be 3!"
        x = F.pad(x, (1, 0), "reflect")
        return F.conv1d(x, self.flipped_filter)


class SincConv(nn.Module):
    """SincNet's band-pass convolution: filters rebuilt every call from learnable low/band Hz
    parameters; ``n_`` and the Hamming window are buffers made at init."""

    def __init__(self, out_channels, kernel_size, sample_rate=16000, min_low_hz=50, min_band_hz=50):
        super().__init__()
        if kernel_size % 2 == 0:
            kernel_size = kernel_size + 1
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.sample_rate = sample_rate
        self.min_low_hz = min_low_hz
        self.min_band_hz = min_band_hz
        low_hz = 30
        high_hz = sample_rate / 2 - (min_low_hz + min_band_hz)
        mel = torch.linspace(2595 * math.log10(1 + low_hz / 700), 2595 * math.log10(1 + high_hz / 700), out_channels + 1)
        hz = 700 * (10 ** (mel / 2595) - 1)
        self.low_hz_ = nn.Parameter(hz[:-1].view(-1, 1))
        self.band_hz_ = nn.Parameter(torch.diff(hz).view(-1, 1))
        n_lin = torch.linspace(0, (kernel_size / 2) - 1, steps=int(kernel_size / 2))
        self.register_buffer("window_", 0.54 - 0.46 * torch.cos(2 * math.pi * n_lin / kernel_size))
        n = (kernel_size - 1) / 2.0
        self.register_buffer("n_", 2 * math.pi * torch.arange(-n, 0).view(1, -1) / sample_rate)

    def forward(self, waveforms):
        low = self.min_low_hz + torch.abs(self.low_hz_)
        high = torch.clamp(low + self.min_band_hz + torch.abs(self.band_hz_), self.min_low_hz, self.sample_rate / 2)
        band = (high - low)[:, 0]
        f_times_t_low = torch.matmul(low, self.n_)
        f_times_t_high = torch.matmul(high, self.n_)
        band_pass_left = ((torch.sin(f_times_t_high) - torch.sin(f_times_t_low)) / (self.n_ / 2)) * self.window_
        band_pass_center = 2 * band.view(-1, 1)
        band_pass_right = torch.flip(band_pass_left, dims=[1])
        band_pass = torch.cat([band_pass_left, band_pass_center, band_pass_right], dim=1)
        band_pass = band_pass / (2 * band[:, None])
        filters = band_pass.view(self.out_channels, 1, self.kernel_size)
        return F.conv1d(waveforms, filters, stride=1, padding=self.kernel_size // 2)


class WaveFrontend(nn.Module):
    def __init__(self, out_channels=80, kernel_size=251):
        super().__init__()
        self.pre = PreEmphasis()
        self.sinc = SincConv(out_channels, kernel_size)
        self.norm = nn.InstanceNorm1d(out_channels, affine=True)

    def forward(self, x):
        return torch.log1p(self.norm(self.sinc(self.pre(x))).abs())
