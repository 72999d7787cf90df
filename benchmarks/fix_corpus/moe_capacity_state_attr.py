# spec: {"model": "moe_capacity_state_attr.py:RouterWithState", "init": {"args": [8, 4]}, "inputs": [{"tensor": [6, 8], "init": "randn"}], "mode": "train"}
import torch
from torch import nn


class RouterWithState(nn.Module):
    """A Switch-Transformer router (fairseq MoE flavour) that records, as a Python attribute,
    whether this batch's load was imbalanced: the trainer reads it after the step."""

    def __init__(self, dim, n_experts, imbalance=0.5):
        super().__init__()
        self.gate = nn.Linear(dim, n_experts)
        self.imbalance = imbalance
        self.last_imbalanced = False

    def forward(self, x):
        probs = self.gate(x).softmax(-1)
        load = probs.mean(0)
        if (load.max() - load.min()) > self.imbalance:
            self.last_imbalanced = True
        else:
            self.last_imbalanced = False
        return probs @ self.gate.weight
