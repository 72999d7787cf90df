# spec: {"model": "timm_layerscale.py:LayerScaleBlock", "init": {"args": [16]}, "inputs": [{"tensor": [2, 4, 16]}]}
import torch
from torch import nn


class LayerScaleBlock(nn.Module):
    def __init__(self, dim, init_values=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(init_values * torch.ones(dim))
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        g = self.gamma.abs().max().item()
        out = self.fc(x) * g
        return x + out
