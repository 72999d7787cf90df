# spec: {"model": "ps_ring_buffer_write_idx.py:StreamingConvDenoiser", "init": {"args": [8]}, "inputs": [{"tensor": [1, 8, 1]}], "calls": 5}
import torch
from torch import nn


class StreamingConvDenoiser(nn.Module):
    """Frame-by-frame audio denoiser keeping the last frames in a ring buffer; the write position is a Python int wrapped with %."""

    def __init__(self, ch, context=4):
        super().__init__()
        self.context = context
        self.register_buffer("ring", torch.zeros(1, ch, context), persistent=False)
        self.mix = nn.Conv1d(ch, ch, context)
        self.write_idx = 0

    def forward(self, frame):
        idx = self.write_idx
        self.ring[:, :, idx] = frame[:, :, 0]
        self.write_idx = (idx + 1) % self.context
        ordered = torch.roll(self.ring, shifts=-self.write_idx, dims=-1)
        return frame - self.mix(ordered)
