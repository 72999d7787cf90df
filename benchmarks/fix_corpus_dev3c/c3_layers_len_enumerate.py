# spec: {"model": "c3_layers_len_enumerate.py:MLPStack", "init": {"args": [[16, 32, 32, 8]]}, "inputs": [{"tensor": [4, 16]}], "calls": 3}
from torch import nn


class MLPStack(nn.Module):
    """DETR's ``MLP``: activation on all but the last layer, decided by ``len(self.layers)``."""

    def __init__(self, dims):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.num_layers = len(self.layers)

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = nn.functional.relu(x)
        return x
