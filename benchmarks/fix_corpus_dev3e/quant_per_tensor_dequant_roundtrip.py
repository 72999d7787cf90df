# spec: {"model": "quant_per_tensor_dequant_roundtrip.py:Int8Bottleneck", "init": {"args": [8, 4]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn


class Int8Bottleneck(nn.Module):
    """Compression bottleneck simulating int8 transport of the latent: a real quantized tensor
    (`torch.quantize_per_tensor`) and back."""

    def __init__(self, dim, latent):
        super().__init__()
        self.enc = nn.Linear(dim, latent)
        self.dec = nn.Linear(latent, dim)
        self.scale = 0.05

    def forward(self, x):
        z = self.enc(x)
        q = torch.quantize_per_tensor(z, self.scale, 128, torch.quint8)
        return self.dec(q.dequantize())
