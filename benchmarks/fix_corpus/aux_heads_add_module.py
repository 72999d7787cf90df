# spec: {"model": "aux_heads_add_module.py:ProbeHeads", "inputs": [{"tensor": [4, 12]}]}
import torch
from torch import nn


class ProbeHeads(nn.Module):
    """Linear probes registered with `add_module` the first time a task is seen (probing code in
    the style of VISSL / DINO evaluation scripts)."""

    def __init__(self, dim=12, tasks=("depth", "normals"), out=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 16), nn.GELU())
        self.tasks = tasks
        self.out = out

    def forward(self, x):
        feats = self.encoder(x)
        preds = []
        for task in self.tasks:
            if f"probe_{task}" not in self._modules:
                self.add_module(f"probe_{task}", nn.Linear(feats.shape[-1], self.out))
            preds.append(getattr(self, f"probe_{task}")(feats))
        return torch.stack(preds, dim=1)
