# spec: {"model": "io_dump_features.py:FeatureDumpingHead", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8]}]}
import os
import tempfile

import torch
from torch import nn


class FeatureDumpingHead(nn.Module):
    """A classifier head that appends its embedding norms to a CSV file, for offline analysis."""

    def __init__(self, dim, n_classes, log_path=None):
        super().__init__()
        self.fc = nn.Linear(dim, n_classes)
        self.log_path = log_path or os.path.join(tempfile.gettempdir(), "feature_norms.csv")

    def forward(self, emb):
        norms = emb.norm(dim=-1)
        with open(self.log_path, "a") as fh:
            fh.write(",".join(f"{v:.4f}" for v in norms.detach().cpu().numpy()) + "\n")
        return self.fc(emb)
