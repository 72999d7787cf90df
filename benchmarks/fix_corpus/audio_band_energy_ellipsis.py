# spec: {"model": "audio_band_energy_ellipsis.py:BandEnergy", "inputs": [{"tensor": [2, 4, 10]}, {"tensor": [10], "init": "rand"}]}
import torch
from torch import nn


class BandEnergy(nn.Module):
    """Spectrogram band energy (torchaudio/kornia style): frequency bins inside a data-given
    band are selected with a mask on the last axis, then summed."""

    def __init__(self, freq_bins=10, low=0.3):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, padding=1)
        self.low = low

    def forward(self, spec, freqs):
        spec = self.conv(spec)
        band = freqs > self.low
        energy = spec[..., band].pow(2).sum()
        return spec, energy
