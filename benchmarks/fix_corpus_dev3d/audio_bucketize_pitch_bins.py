# spec: {"model": "audio_bucketize_pitch_bins.py:PitchEmbedding", "init": {"args": [8, 6]}, "inputs": [{"tensor": [2, 10, 8]}, {"tensor": [2, 10], "init": "rand"}]}
import torch
from torch import nn


class PitchEmbedding(nn.Module):
    """FastSpeech2 variance adaptor: quantise the pitch into log-spaced bins with bucketize and
    add the bin embedding; the bins used are counted for the variance loss weight."""

    def __init__(self, dim, n_bins):
        super().__init__()
        self.register_buffer("bins", torch.linspace(0.0, 1.0, n_bins - 1))
        self.emb = nn.Embedding(n_bins, dim)

    def forward(self, x, pitch):
        ids = torch.bucketize(pitch, self.bins)
        used = torch.bincount(ids.flatten())
        weight = (used > 0).float().mean()
        return x + self.emb(ids), weight
