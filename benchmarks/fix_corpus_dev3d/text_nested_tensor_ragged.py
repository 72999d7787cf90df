# spec: {"model": "text_nested_tensor_ragged.py:RaggedSentenceEncoder", "init": {"args": [8]}, "inputs": [{"tensor": [10, 8]}]}
import torch
from torch import nn


class RaggedSentenceEncoder(nn.Module):
    """Sentence encoder over a document of fixed-length sentence chunks, packed as a nested
    tensor and padded back for the pooling."""

    def __init__(self, dim, chunk=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.chunk = chunk

    def forward(self, tokens):
        pieces = list(tokens.split(self.chunk))
        nt = torch.nested.nested_tensor(pieces)
        padded = torch.nested.to_padded_tensor(nt, 0.0)
        return self.proj(padded).mean(1)
