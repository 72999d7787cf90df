"""axial-positional-embedding: factorized 2-D positional embedding added to flattened image tokens."""

import torch
from axial_positional_embedding import AxialPositionalEmbedding


class Tokens(torch.nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.pos = AxialPositionalEmbedding(dim=dim, axial_shape=(4, 4))
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x + self.pos(x))


def make():
    torch.manual_seed(0)
    return Tokens(), (torch.randn(2, 16, 16),)
