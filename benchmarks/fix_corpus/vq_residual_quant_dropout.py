# spec: {"model": "vq_residual_quant_dropout.py:CodecBottleneck", "inputs": [{"tensor": [2, 16, 32]}], "mode": "train"}
import torch
from torch import nn
from vector_quantize_pytorch import ResidualVQ


class CodecBottleneck(nn.Module):
    """SoundStream-style residual VQ with quantizer dropout during training (vector-quantize-pytorch)."""

    def __init__(self, dim=32):
        super().__init__()
        self.pre = nn.Linear(dim, dim)
        self.rvq = ResidualVQ(dim=dim, num_quantizers=4, codebook_size=32, quantize_dropout=True)
        self.post = nn.Linear(dim, dim)

    def forward(self, x):
        quantized, indices, commit_loss = self.rvq(self.pre(x))
        return self.post(quantized), indices, commit_loss.sum()
