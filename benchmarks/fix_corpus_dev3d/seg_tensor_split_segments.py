# spec: {"model": "seg_tensor_split_segments.py:SegmentPooler", "init": {"args": [8]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [2], "dtype": "int64", "data": [3, 7]}]}
import torch
from torch import nn


class SegmentPooler(nn.Module):
    """Pool frames into segments given the boundary indices (speaker diarisation / phone
    segmentation): tensor_split at a tensor of indices, then mean each piece."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames, bounds):
        pieces = torch.tensor_split(self.proj(frames), bounds)
        return torch.stack([p.mean(0) for p in pieces])
