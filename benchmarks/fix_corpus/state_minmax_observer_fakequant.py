# spec: {"model": "state_minmax_observer_fakequant.py:CalibratedMLP", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 3}
import torch
import torch.nn as nn


class _MinMaxFakeQuant(nn.Module):
    """Eager-mode QAT habit: a min/max observer kept as Python floats, then fake quantization with the
    scale computed from them."""

    def __init__(self, qmax=255):
        super().__init__()
        self.qmax = qmax
        self.min_val = 0.0
        self.max_val = 0.0

    def forward(self, x):
        self.min_val = min(self.min_val, x.min().item())
        self.max_val = max(self.max_val, x.max().item())
        scale = (self.max_val - self.min_val) / self.qmax + 1e-8
        q = torch.clamp(torch.round((x - self.min_val) / scale), 0, self.qmax)
        return x + (q * scale + self.min_val - x).detach()


class CalibratedMLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fq = _MinMaxFakeQuant()
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x):
        return self.fc2(self.fq(torch.relu(self.fc1(x))))
