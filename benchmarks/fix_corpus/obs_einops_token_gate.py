# spec: {"model": "obs_einops_token_gate.py:GatedMixer", "init": {"args": [16]}, "inputs": [{"tensor": [2, 6, 16], "init": "randn"}], "mode": "train"}
import einops
import torch
from torch import nn


class GatedMixer(nn.Module):
    """x-transformers / MLP-Mixer flavour: a token-mixing block whose residual is damped when
    the mean token energy (an einops reduction) runs high."""

    def __init__(self, dim, damp=0.5, threshold=1.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)
        self.damp = damp
        self.threshold = threshold

    def forward(self, x):
        h = self.mix(self.norm(x))
        energy = einops.reduce(h.pow(2), "b n d -> b", "mean").mean()
        if energy > self.threshold:
            h = h * self.damp
        return x + h
