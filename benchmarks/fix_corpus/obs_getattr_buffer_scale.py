# spec: {"model": "obs_getattr_buffer_scale.py:RunningScaleNorm", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8], "init": "randn"}], "mode": "eval"}
import torch
from torch import nn


class RunningScaleNorm(nn.Module):
    """A running-statistics rescale in the style of fairseq / ESPnet global CMVN: the buffer is
    read through ``getattr`` by name, and a tiny running scale falls back to 1."""

    def __init__(self, dim, stat="rms"):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.stat = stat
        self.register_buffer(f"running_{stat}", torch.full((), 0.75))

    def forward(self, x):
        running = getattr(self, f"running_{self.stat}")
        if running < 1e-3:
            scale = 1.0
        else:
            scale = 1.0 / running
        return self.proj(x) * scale
