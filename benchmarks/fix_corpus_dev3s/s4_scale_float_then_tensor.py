# spec: {"model": "s4_scale_float_then_tensor.py:ScaledResidual", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}, 0.5], "variants": [{"inputs": [{"tensor": [2, 8]}, {"tensor": [], "init": "full", "value": 0.5}]}]}
from torch import nn


class ScaledResidual(nn.Module):
    """A residual branch scaled by `alpha`, a float from the config or a learned 0-d tensor."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, alpha):
        return x + alpha * self.fc(x).relu()
