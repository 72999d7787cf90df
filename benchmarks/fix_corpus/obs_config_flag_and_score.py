# spec: {"model": "obs_config_flag_and_score.py:ConfidenceGate", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8], "init": "randn"}], "mode": "eval"}
import torch
from torch import nn


class ConfidenceGate(nn.Module):
    """A config dict decides whether the gate is on (detectron2-style cfg): the condition mixes
    a config value and a score from a dict, neither typed: which part is the tensor is not
    known from the code, so the branch must not be rewritten on the observation alone."""

    def __init__(self, dim, cfg=None):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.cfg = cfg or {"gate": True, "thresh": 0.5}
        self.cache = {}

    def forward(self, x):
        y = self.proj(x)
        self.cache["score"] = y.sigmoid().mean()
        score = self.cache["score"]
        if self.cfg["gate"] and score > self.cfg["thresh"]:
            y = y * 2
        return y
