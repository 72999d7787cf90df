"""kmeans-pytorch: assign encoder features to fixed cluster centres (cosine distance) at inference."""

import torch
from kmeans_pytorch import kmeans_predict


class Assign(torch.nn.Module):
    def __init__(self, dim: int = 4, codes: int = 3) -> None:
        super().__init__()
        self.enc = torch.nn.Linear(dim, dim)
        self.register_buffer("centers", torch.randn(codes, dim))

    def forward(self, x):
        return kmeans_predict(self.enc(x), self.centers, distance="cosine")


def make():
    torch.manual_seed(0)
    return Assign(), (torch.randn(10, 4),)
