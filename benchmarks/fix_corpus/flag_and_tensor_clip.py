# spec: {"model": "flag_and_tensor_clip.py:ClippedResidual", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}], "mode": "train"}
import torch
from torch import nn


class ClippedResidual(nn.Module):
    """A residual block that clips activations during training only if they blow up."""

    def __init__(self, dim, limit=3.0):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.limit = limit

    def forward(self, x):
        h = torch.relu(self.fc(x))
        if self.training and (h.abs() > self.limit).any():
            h = h.clamp(-self.limit, self.limit)
        return x + h
