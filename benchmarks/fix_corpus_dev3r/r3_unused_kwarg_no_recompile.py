# spec: {"model": "r3_unused_kwarg_no_recompile.py:Head", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "kwargs": {"return_dict": true, "output_attentions": false}, "variants": [{"inputs": [{"tensor": [2, 8]}], "kwargs": {"return_dict": true, "output_attentions": true}}]}
import torch
from torch import nn


class Head(nn.Module):
    """An HF-style head that accepts `output_attentions` for API compatibility and ignores it."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 2)

    def forward(self, x, return_dict=True, output_attentions=False, **kwargs):
        logits = self.fc(x)
        if return_dict:
            return {"logits": logits}
        return (logits,)
