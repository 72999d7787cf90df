# spec: {"model": "hook_nonfinite_raise.py:CheckedMLP", "init": {"args": [12]}, "inputs": [{"tensor": [3, 12]}]}
import torch
from torch import nn


def _check_finite(module, inputs, output):
    if not torch.isfinite(output).all():
        raise RuntimeError(f"non-finite output in {module.__class__.__name__}")


class CheckedMLP(nn.Module):
    """MLP with forward hooks that raise as soon as a layer emits NaN/Inf (debugging a diverging run)."""

    def __init__(self, dim):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(dim, 24), nn.GELU(), nn.Linear(24, 24), nn.GELU(), nn.Linear(24, 2))
        for layer in self.layers:
            if isinstance(layer, nn.Linear):
                layer.register_forward_hook(_check_finite)

    def forward(self, x):
        return self.layers(x)
