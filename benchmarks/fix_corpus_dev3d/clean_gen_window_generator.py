# spec: {"model": "clean_gen_window_generator.py:WindowedEncoder", "init": {"args": [8, 4]}, "inputs": [{"tensor": [2, 12, 8]}]}
import torch
from torch import nn


def sliding_windows(x, size, step):
    for start in range(0, x.shape[1] - size + 1, step):
        yield x[:, start : start + size]


class WindowedEncoder(nn.Module):
    """Encoder applied over sliding windows produced by a generator helper."""

    def __init__(self, dim, window):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.window = window

    def forward(self, x):
        outs = [self.enc(w).mean(1) for w in sliding_windows(x, self.window, self.window // 2)]
        return torch.stack(outs, dim=1)
