# spec: {"model": "r3_rnn_unroll_shape_range.py:Unrolled", "init": {"args": [8]}, "inputs": [{"tensor": [2, 4, 8]}], "variants": [{"inputs": [{"tensor": [2, 5, 8]}]}, {"inputs": [{"tensor": [2, 6, 8]}]}]}
import torch
from torch import nn


class Unrolled(nn.Module):
    """An RNN cell unrolled over the sequence length read as a Python int."""

    def __init__(self, dim):
        super().__init__()
        self.cell = nn.GRUCell(dim, dim)

    def forward(self, x):
        h = x.new_zeros(x.shape[0], x.shape[2])
        outs = []
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
            outs.append(h)
        return torch.stack(outs, 1)
