# spec: {"model": "s4_multiview_tensor_list.py:MultiViewEncoder", "init": {"args": [8]}, "inputs": [[{"tensor": [2, 8]}, {"tensor": [2, 8]}]], "variants": [{"inputs": [[{"tensor": [2, 8]}, {"tensor": [2, 8]}, {"tensor": [2, 8]}, {"tensor": [2, 8]}]]}]}
import torch
from torch import nn


class MultiViewEncoder(nn.Module):
    """DINO-style multi-crop: a list of views whose length changes between global and local crops."""

    def __init__(self, dim):
        super().__init__()
        self.backbone = nn.Linear(dim, dim)

    def forward(self, views):
        outs = [self.backbone(v) for v in views]
        return torch.stack(outs).mean(0)
