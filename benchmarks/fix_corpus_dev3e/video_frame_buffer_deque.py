# spec: {"model": "video_frame_buffer_deque.py:OnlineActionHead", "init": {"args": [8, 4]}, "inputs": [{"tensor": [1, 8]}], "calls": 3}
import collections

import torch
from torch import nn


class OnlineActionHead(nn.Module):
    """Streaming action recognition: per-frame features kept in a bounded deque, the window
    stacked and pooled each call."""

    def __init__(self, dim, window):
        super().__init__()
        self.buffer = collections.deque(maxlen=window)
        self.frame = nn.Linear(dim, dim)
        self.cls = nn.Linear(dim, 5)

    def forward(self, frame):
        self.buffer.append(self.frame(frame))
        clip = torch.stack(list(self.buffer), dim=1)
        return self.cls(clip.mean(dim=1))
