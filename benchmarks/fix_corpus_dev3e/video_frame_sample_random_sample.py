# spec: {"model": "video_frame_sample_random_sample.py:ClipSampler", "init": {"args": [4, 8]}, "inputs": [{"tensor": [2, 12, 8]}]}
import random

import torch
from torch import nn


class ClipSampler(nn.Module):
    """TSN-style training: a fixed number of frames drawn without replacement from the clip
    (kept in temporal order), encoded and averaged."""

    def __init__(self, num_frames, dim):
        super().__init__()
        self.num_frames = num_frames
        self.frame_enc = nn.Linear(dim, dim)

    def forward(self, video):
        t = video.shape[1]
        idx = sorted(random.sample(range(t), self.num_frames))
        frames = video[:, idx]
        return self.frame_enc(frames).mean(dim=1)
