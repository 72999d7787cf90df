# spec: {"model": "multitask_heads_hasattr.py:AuxHeads", "inputs": [{"tensor": [4, 12]}]}
import torch
from torch import nn


class AuxHeads(nn.Module):
    """Auxiliary heads attached lazily with hasattr/setattr (self-supervised research code)."""

    def __init__(self, dim=12, aux=("rot", "jigsaw")):
        super().__init__()
        self.backbone = nn.Linear(dim, 16)
        self.aux = aux

    def forward(self, x):
        h = torch.tanh(self.backbone(x))
        outs = [h]
        for name in self.aux:
            if not hasattr(self, f"head_{name}"):
                setattr(self, f"head_{name}", nn.Linear(16, 4))
            outs.append(getattr(self, f"head_{name}")(h))
        return torch.cat(outs, dim=-1)
