# spec: {"model": "prof_perf_counter_sections.py:TimedEncoderDecoder", "init": {"args": [16]}, "inputs": [{"tensor": [2, 8, 16]}]}
import time

import torch
from torch import nn


class TimedEncoderDecoder(nn.Module):
    """Encoder/decoder that records per-section wall time for a perf dashboard."""

    def __init__(self, dim):
        super().__init__()
        self.encoder = nn.TransformerEncoderLayer(dim, 2, 32, batch_first=True, dropout=0.0)
        self.decoder = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.timings = {}

    def forward(self, x):
        t0 = time.perf_counter()
        h = self.encoder(x)
        t1 = time.perf_counter()
        out = self.decoder(h)
        t2 = time.perf_counter()
        self.timings["encoder_ms"] = (t1 - t0) * 1e3
        self.timings["decoder_ms"] = (t2 - t1) * 1e3
        return out
