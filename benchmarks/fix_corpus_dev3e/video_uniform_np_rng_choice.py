# spec: {"model": "video_uniform_np_rng_choice.py:SegmentSampler", "init": {"args": [3, 8]}, "inputs": [{"tensor": [2, 12, 8]}]}
import numpy as np
import torch
from torch import nn


class SegmentSampler(nn.Module):
    """Segment-based frame sampling (one random frame per segment) with a seeded numpy Generator
    owned by the module, as in a video dataset's transform moved into the model."""

    def __init__(self, segments, dim, seed=0):
        super().__init__()
        self.segments = segments
        self.rng = np.random.default_rng(seed)
        self.temporal = nn.Conv1d(dim, dim, kernel_size=3, padding=1)

    def forward(self, video):
        t = video.shape[1]
        bounds = np.linspace(0, t, self.segments + 1).astype(np.int64)
        offsets = self.rng.integers(bounds[:-1], bounds[1:])
        frames = video[:, torch.from_numpy(offsets)]
        return self.temporal(frames.transpose(1, 2)).mean(-1)
