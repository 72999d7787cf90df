"""kmeans-pytorch: initialise a codebook by k-means over a batch of encoder features."""

import torch
from kmeans_pytorch import kmeans


class CodebookInit(torch.nn.Module):
    def __init__(self, dim: int = 4, codes: int = 3) -> None:
        super().__init__()
        self.enc = torch.nn.Linear(dim, dim)
        self.codes = codes

    def forward(self, x):
        feats = self.enc(x)
        ids, centers = kmeans(X=feats, num_clusters=self.codes, distance="euclidean")
        return ids, centers


def make():
    torch.manual_seed(0)
    return CodebookInit(), (torch.randn(12, 4),)
