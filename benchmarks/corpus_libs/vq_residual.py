"""vector-quantize-pytorch: residual VQ and finite scalar quantisation."""

import torch
from vector_quantize_pytorch import FSQ, ResidualVQ


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rvq = ResidualVQ(dim=16, num_quantizers=2, codebook_size=32)
        self.fsq = FSQ(levels=[8, 5, 5])
        self.proj = torch.nn.Linear(16, 3)

    def forward(self, x):
        q, idx, loss = self.rvq(x)
        f, fidx = self.fsq(self.proj(q))
        return f, loss


def make():
    return Model().eval(), (torch.randn(2, 10, 16),)
