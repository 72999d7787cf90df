"""vector-quantize-pytorch: lookup-free quantisation of a latent sequence."""

import torch
from vector_quantize_pytorch import LFQ


class Tokenizer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = torch.nn.Linear(8, 16)
        self.quant = LFQ(codebook_size=256, dim=16, entropy_loss_weight=0.1)

    def forward(self, x):
        z = self.enc(x)
        quantized, indices, aux_loss = self.quant(z)
        return quantized, indices, aux_loss


SPEC = {"variants": [{"inputs": [{"tensor": [2, 12, 8]}]}]}


def make():
    return Tokenizer(), (torch.randn(2, 10, 8),)
