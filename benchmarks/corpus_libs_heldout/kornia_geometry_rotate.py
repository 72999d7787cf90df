"""kornia: rotate and resize images inside a module; the angle comes as a tensor."""

import torch
import kornia.geometry.transform as KT


class Warp(torch.nn.Module):
    def __init__(self, size: int = 12) -> None:
        super().__init__()
        self.size = size
        self.proj = torch.nn.Conv2d(1, 2, 1)

    def forward(self, img, angle):
        rotated = KT.rotate(img, angle)
        small = KT.resize(rotated, (self.size, self.size))
        flipped = KT.hflip(small)
        return self.proj(flipped)


SPEC = {
    "variants": [
        {"inputs": [{"tensor": [3, 1, 16, 16], "init": "rand"}, {"tensor": [3], "data": [10.0, 20.0, 30.0]}]}
    ]
}


def make():
    return Warp(), (torch.rand(2, 1, 16, 16), torch.tensor([15.0, 45.0]))
