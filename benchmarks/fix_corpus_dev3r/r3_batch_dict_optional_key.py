# spec: {"model": "r3_batch_dict_optional_key.py:LitModel", "init": {"args": [8]}, "inputs": [{"dict": {"x": {"tensor": [4, 8]}}}], "variants": [{"inputs": [{"dict": {"x": {"tensor": [4, 8]}, "y": {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 3}}}]}]}
import torch
import torch.nn.functional as F
from torch import nn


class LitModel(nn.Module):
    """A Lightning-style step on a batch dict whose labels are present only in training."""

    def __init__(self, dim):
        super().__init__()
        self.net = nn.Linear(dim, 3)

    def forward(self, batch):
        logits = self.net(batch["x"])
        out = {"logits": logits}
        if "y" in batch:
            out["loss"] = F.cross_entropy(logits, batch["y"])
        return out
