# spec: {"model": "clip_math_exp_logit_scale.py:ContrastiveHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4, 8]}]}
import math

import torch
from torch import nn


class ContrastiveHead(nn.Module):
    """CLIP-style symmetric InfoNCE with a learned temperature exponentiated by math.exp."""

    def __init__(self, dim):
        super().__init__()
        self.img = nn.Linear(dim, dim)
        self.txt = nn.Linear(dim, dim)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, image, text):
        a = nn.functional.normalize(self.img(image), dim=-1)
        b = nn.functional.normalize(self.txt(text), dim=-1)
        scale = math.exp(self.logit_scale)
        logits = scale * a @ b.t()
        target = torch.arange(a.shape[0])
        return (nn.functional.cross_entropy(logits, target) + nn.functional.cross_entropy(logits.t(), target)) / 2
