"""rotary-embedding-torch: rotary position embedding of queries and keys."""

import torch
from rotary_embedding_torch import RotaryEmbedding


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rot = RotaryEmbedding(dim=16)

    def forward(self, q, k):
        q = self.rot.rotate_queries_or_keys(q)
        k = self.rot.rotate_queries_or_keys(k)
        return q @ k.transpose(-1, -2)


def make():
    return Model(), (torch.randn(1, 2, 8, 16), torch.randn(1, 2, 8, 16))
