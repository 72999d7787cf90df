# spec: {"model": "clean_quant_tensor_qparams.py:LSQActQuant", "init": {"args": [8, 8]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class LSQActQuant(nn.Module):
    """LSQ-style learnable activation fake-quant: scale and zero point stay tensors (a parameter
    and a buffer) all the way into the fused fake-quant op."""

    def __init__(self, fin, fout):
        super().__init__()
        self.fc = nn.Linear(fin, fout)
        self.scale = nn.Parameter(torch.tensor([0.05]))
        self.register_buffer("zero_point", torch.tensor([128.0]))

    def forward(self, x):
        y = self.fc(x)
        return torch._fake_quantize_learnable_per_tensor_affine(y, self.scale, self.zero_point, 0, 255, 1.0)
