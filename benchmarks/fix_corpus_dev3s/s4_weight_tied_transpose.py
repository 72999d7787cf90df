# spec: {"model": "s4_weight_tied_transpose.py:TiedLMHead", "init": {"args": [32, 8]}, "inputs": [{"tensor": [2, 5, 8]}, false], "variants": [{"inputs": [{"tensor": [2, 5, 8]}, true]}]}
import torch
from torch import nn


class TiedLMHead(nn.Module):
    """An LM head tied to the embedding; `transposed` picks a `.t()` (strided) or a copied weight."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, hidden, transposed):
        weight = self.embed.weight.t() if transposed else self.embed.weight.t().contiguous()
        return torch.matmul(hidden, weight)
