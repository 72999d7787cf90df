"""vector-quantize-pytorch: a VQ layer in an autoencoder bottleneck."""

import torch
from vector_quantize_pytorch import VectorQuantize


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = torch.nn.Linear(8, 16)
        self.vq = VectorQuantize(dim=16, codebook_size=32, decay=0.8)

    def forward(self, x):
        quantized, indices, loss = self.vq(self.enc(x))
        return quantized, loss


def make():
    return Model().train(), (torch.randn(2, 10, 8),)
