# spec: {"model": "s4_grad_enabled_flag.py:FrozenBackboneHead", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "kwargs": {"finetune_backbone": false}, "variants": [{"inputs": [{"tensor": [4, 8]}], "kwargs": {"finetune_backbone": true}}]}
import torch
from torch import nn


class FrozenBackboneHead(nn.Module):
    """Linear probing: the backbone runs without grad unless `finetune_backbone` is set."""

    def __init__(self, dim):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.head = nn.Linear(dim, 2)

    def forward(self, x, finetune_backbone=False):
        with torch.set_grad_enabled(finetune_backbone):
            feats = self.backbone(x)
        return self.head(feats)
