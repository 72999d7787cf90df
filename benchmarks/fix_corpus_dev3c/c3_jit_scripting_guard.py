# spec: {"model": "c3_jit_scripting_guard.py:GatedResidual", "init": {"args": [12]}, "inputs": [{"tensor": [3, 12]}], "calls": 3}
import torch
from torch import nn


class GatedResidual(nn.Module):
    """Records the gate's mean for a progress bar, skipped when scripted or compiled."""

    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.last_gate_mean = 0.0

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        if not torch.jit.is_scripting() and not torch.compiler.is_compiling():
            self.last_gate_mean = float(g.mean().item())
        return x + g * self.body(x)
