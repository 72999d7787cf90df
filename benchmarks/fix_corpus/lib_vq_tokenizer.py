# spec: {"model": "lib_vq_tokenizer.py:VQTokenizer", "inputs": [{"tensor": [2, 16, 32]}]}
import torch
from torch import nn
from vector_quantize_pytorch import VectorQuantize


class VQTokenizer(nn.Module):
    """A VQ-VAE-style bottleneck: encode, quantize with vector_quantize_pytorch, decode."""

    def __init__(self, dim=32, codebook_size=64):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.vq = VectorQuantize(dim=dim, codebook_size=codebook_size, decay=0.8)
        self.dec = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.enc(x)
        quantized, indices, commit_loss = self.vq(h)
        return self.dec(quantized), indices, commit_loss
