# spec: {"model": "sc_audio_onset_tail_energy.py:TailEnergy", "init": {"args": [12]}, "inputs": [{"tensor": [2, 12, 30]}, {"tensor": [2], "dtype": "int64", "data": [5, 3]}]}
import torch
from torch import nn


class TailEnergy(nn.Module):
    """Audio front end: the band energies after the first onset of the batch (leading silence
    dropped), summed over time."""

    def __init__(self, n_mels):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(n_mels, 1))

    def forward(self, spec, onset):
        lag = onset.min().item()
        tail = spec[:, :, lag:]
        energy = (tail * self.gain).pow(2)
        return energy.sum(2)
