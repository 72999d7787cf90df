# spec: {"model": "speech_pitch_lag_slice.py:PeriodEncoder", "inputs": [{"tensor": [2, 200]}]}
import torch
import torch.nn.functional as F
from torch import nn


class PeriodEncoder(nn.Module):
    """Estimates the dominant pitch period by autocorrelation and encodes one period of the frame."""

    def __init__(self, min_lag=20, max_lag=80, dim=32):
        super().__init__()
        self.min_lag, self.max_lag = min_lag, max_lag
        self.enc = nn.Linear(16, dim)

    def forward(self, frames):
        x = frames - frames.mean(dim=-1, keepdim=True)
        spec = torch.fft.rfft(x, n=2 * x.shape[-1])
        ac = torch.fft.irfft(spec.abs() ** 2)[..., : x.shape[-1]]
        lag = int(ac[:, self.min_lag : self.max_lag].mean(0).argmax()) + self.min_lag
        period = x[:, None, :lag]
        return self.enc(F.adaptive_avg_pool1d(period, 16).squeeze(1))
