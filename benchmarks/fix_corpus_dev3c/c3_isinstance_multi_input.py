# spec: {"model": "c3_isinstance_multi_input.py:FusionHead", "init": {"args": [8, 6]}, "inputs": [[{"tensor": [2, 8]}, {"tensor": [2, 6]}]], "kwargs": {"mask": {"tensor": [2, 14], "dtype": "bool", "p": 0.8}}, "calls": 3}
import torch
from torch import nn


class FusionHead(nn.Module):
    """Concatenates a list of modality features; the mask may be a tensor or a float."""

    def __init__(self, a_dim, b_dim, out_dim=4):
        super().__init__()
        self.fc = nn.Linear(a_dim + b_dim, out_dim)

    def forward(self, feats, mask=None):
        if isinstance(feats, (list, tuple)):
            feats = torch.cat(list(feats), dim=-1)
        if torch.is_tensor(mask):
            feats = feats * mask.to(feats.dtype)
        elif mask is not None:
            feats = feats * float(mask)
        return self.fc(feats)
