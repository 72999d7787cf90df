"""siren-pytorch: a sinusoidal implicit neural representation of an image (SirenNet over coords)."""

import torch
from siren_pytorch import SirenNet


class ImageField(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = SirenNet(dim_in=2, dim_hidden=32, dim_out=3, num_layers=3, w0_initial=30.0)

    def forward(self, coords):
        return self.net(coords)


def make():
    torch.manual_seed(0)
    return ImageField(), (torch.rand(64, 2) * 2 - 1,)
