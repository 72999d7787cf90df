"""gpytorch: a periodic kernel evaluated densely between two point sets."""

import torch
import gpytorch


class Features(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.kernel = gpytorch.kernels.PeriodicKernel()
        self.anchors = torch.nn.Parameter(torch.randn(6, 1))

    def forward(self, x):
        k = self.kernel(x, self.anchors).to_dense()
        return k @ torch.ones(6)


def make():
    return Features(), (torch.randn(4, 1),)
