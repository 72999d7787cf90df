# spec: {"model": "clean_module_apply_zero_bias.py:BiasFreeProbe", "init": {"args": [8]}, "inputs": [{"tensor": [3, 8]}]}
from torch import nn


def _zero_bias(m):
    if isinstance(m, nn.Linear) and m.bias is not None:
        nn.init.zeros_(m.bias)


class BiasFreeProbe(nn.Module):
    """Linear probe that re-zeroes every bias through Module.apply before each call (an
    ablation from a research repo)."""

    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 2))

    def forward(self, x):
        self.mlp.apply(_zero_bias)
        return self.mlp(x)
