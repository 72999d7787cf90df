"""kornia: a Gaussian blur and a Sobel edge map; the kernel size is a Python int per call."""

import torch
import kornia


class EdgeBlur(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, img, k: int):
        blurred = kornia.filters.gaussian_blur2d(img, (k, k), (1.5, 1.5))
        edges = kornia.filters.sobel(blurred)
        return self.conv(edges)


SPEC = {
    "variants": [
        {"inputs": [{"tensor": [1, 3, 16, 16], "init": "rand"}, 3]},
        {"inputs": [{"tensor": [2, 3, 20, 20], "init": "rand"}, 3]},
    ]
}


def make():
    return EdgeBlur(), (torch.rand(1, 3, 16, 16), 5)
