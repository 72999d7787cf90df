# spec: {"model": "r3_dtype_bf16_switch.py:Mixer", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "variants": [{"inputs": [{"tensor": [2, 8], "dtype": "float64"}]}, {"inputs": [{"tensor": [2, 8], "dtype": "bfloat16"}]}]}
import torch
from torch import nn


class Mixer(nn.Module):
    """A block that casts its input to the weight dtype and back, called with several dtypes."""

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        orig = x.dtype
        y = self.fc(x.to(self.fc.weight.dtype))
        return torch.tanh(y).to(orig)
