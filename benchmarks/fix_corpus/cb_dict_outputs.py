# spec: {"model": "cb_dict_outputs.py:MultiTaskHeads", "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class MultiTaskHeads(nn.Module):
    """Detectron-style heads returning a dict; outputs past a bound are replaced in place."""

    def __init__(self, dim=8):
        super().__init__()
        self.cls = nn.Linear(dim, 3)
        self.box = nn.Linear(dim, 4)
        self.bound = 1.5

    def forward(self, x):
        out = {"cls": self.cls(x), "box": self.box(x)}
        for k in ("cls", "box"):
            if out[k].abs().max() > self.bound:
                out[k] = out[k].tanh() * self.bound
                out[k + "_clipped"] = torch.ones(())
        return out["cls"], out["box"]
