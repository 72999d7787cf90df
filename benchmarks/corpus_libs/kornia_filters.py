"""kornia: functional filters and a rotation in forward."""

import torch
from kornia.filters import gaussian_blur2d, sobel
from kornia.geometry.transform import rotate


class Model(torch.nn.Module):
    def forward(self, x):
        x = gaussian_blur2d(x, (3, 3), (1.5, 1.5))
        x = rotate(x, torch.tensor([30.0, 45.0]))
        return sobel(x)


def make():
    return Model(), (torch.rand(2, 3, 16, 16),)
