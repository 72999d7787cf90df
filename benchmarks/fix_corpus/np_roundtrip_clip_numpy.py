# spec: {"model": "np_roundtrip_clip_numpy.py:SoftTargets", "inputs": [{"tensor": [8, 5]}]}
import numpy as np
import torch
from torch import nn


class SoftTargets(nn.Module):
    """A label-smoothing helper written with a NumPy round trip (clip + log), then back to torch."""

    def __init__(self, classes=5, eps=0.1):
        super().__init__()
        self.proj = nn.Linear(classes, classes)
        self.eps = eps

    def forward(self, logits):
        probs = self.proj(logits).softmax(-1)
        arr = probs.detach().cpu().numpy()
        arr = np.clip(arr, self.eps / 10, 1.0)
        target = torch.from_numpy(np.log(arr)).to(probs.device)
        return -(probs * target).sum(-1).mean()
