# spec: {"model": "vq_code_usage_dict.py:TokenizerVQ", "inputs": [{"tensor": [2, 16, 32]}], "calls": 2}
import torch
from torch import nn
from vector_quantize_pytorch import VectorQuantize


class TokenizerVQ(nn.Module):
    """An audio-tokenizer bottleneck with vector-quantize-pytorch that tallies code usage for a histogram."""

    def __init__(self):
        super().__init__()
        self.vq = VectorQuantize(dim=32, codebook_size=64, decay=0.8, commitment_weight=1.0)
        self.code_counts = {}

    def forward(self, x):
        quantized, indices, commit_loss = self.vq(x)
        for code in indices.flatten().tolist():
            self.code_counts[code] = self.code_counts.get(code, 0) + 1
        return quantized, indices, commit_loss
