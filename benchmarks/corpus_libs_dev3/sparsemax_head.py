"""sparsemax: a sparsemax gate over mixture weights of a multi-head pooling layer."""

import torch
from sparsemax import Sparsemax


class SparseGatePool(torch.nn.Module):
    def __init__(self, dim: int = 12, heads: int = 4) -> None:
        super().__init__()
        self.score = torch.nn.Linear(dim, heads)
        self.gate = Sparsemax(dim=1)

    def forward(self, x):
        w = self.gate(self.score(x))  # (b, n, heads), sparse over positions
        return torch.einsum("bnh,bnd->bhd", w, x)


def make():
    torch.manual_seed(0)
    return SparseGatePool(), (torch.randn(2, 7, 12),)
