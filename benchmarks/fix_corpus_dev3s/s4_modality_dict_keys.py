# spec: {"model": "s4_modality_dict_keys.py:FusionModel", "init": {"args": [8]}, "inputs": [{"dict": {"image": {"tensor": [2, 8]}, "text": {"tensor": [2, 8]}}}], "variants": [{"inputs": [{"dict": {"image": {"tensor": [2, 8]}}}]}]}
import torch
from torch import nn


class FusionModel(nn.Module):
    """Late fusion over whichever modalities the batch dict carries."""

    def __init__(self, dim):
        super().__init__()
        self.encoders = nn.ModuleDict({"image": nn.Linear(dim, dim), "text": nn.Linear(dim, dim)})

    def forward(self, inputs):
        feats = []
        for name, value in inputs.items():
            feats.append(self.encoders[name](value))
        return torch.stack(feats).sum(0)
