# spec: {"model": "lens25_vits_mask_slice_two.py:PosteriorFlowStep", "init": {"args": [12]}, "inputs": [{"tensor": [3, 10, 12]}, {"tensor": [3, 10, 12]}, {"tensor": [3], "dtype": "int64", "data": [10, 6, 4]}]}
import torch
from torch import nn


class PosteriorFlowStep(nn.Module):
    """A VITS-like posterior step: the sample `z = m + eps * exp(logs)` is written row by row over
    each utterance's frames (the mean and the log-scale sliced by one length), padding left zero."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, 2 * dim)

    def forward(self, h, eps, y_lengths):
        m, logs = self.proj(h).chunk(2, dim=-1)
        z = torch.zeros_like(m)
        for i in range(h.size(0)):
            t = int(y_lengths[i])
            z[i, :t] = m[i, :t] + eps[i, :t] * torch.exp(logs[i, :t])
        return z
