"""vector-quantize-pytorch: cosine-similarity codebook with k-means init and EMA updates."""

import torch
from vector_quantize_pytorch import VectorQuantize


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.vq = VectorQuantize(
            dim=16, codebook_size=32, use_cosine_sim=True, kmeans_init=True, kmeans_iters=2, decay=0.9
        )
        self.out = torch.nn.Linear(16, 4)

    def forward(self, x):
        q, idx, loss = self.vq(x)
        return self.out(q), loss


def make():
    return Model(), (torch.randn(2, 40, 16),)
