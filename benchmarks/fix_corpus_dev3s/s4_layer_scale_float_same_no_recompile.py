# spec: {"model": "s4_layer_scale_float_same_no_recompile.py:ResidualBlock", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, 0.5], "variants": [{"inputs": [{"tensor": [4, 8], "init": "rand"}, 0.5]}, {"inputs": [{"tensor": [4, 8], "init": "ones"}, 0.5]}]}
from torch import nn


class ResidualBlock(nn.Module):
    """A residual block whose caller passes the same residual scale on every call."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, residual_scale):
        return x + residual_scale * self.fc(x).relu()
