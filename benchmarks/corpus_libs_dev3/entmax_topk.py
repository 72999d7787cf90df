"""entmax: sparsemax over a large vocabulary with a partial sort (k largest, doubled where unsolved)."""

import torch
from entmax import sparsemax


class SparseOutput(torch.nn.Module):
    def __init__(self, dim: int = 16, vocab: int = 40) -> None:
        super().__init__()
        self.out = torch.nn.Linear(dim, vocab)

    def forward(self, h):
        return sparsemax(self.out(h), dim=-1, k=4)


def make():
    torch.manual_seed(0)
    return SparseOutput(), (torch.randn(3, 16),)
