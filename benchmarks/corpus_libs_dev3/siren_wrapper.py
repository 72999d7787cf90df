"""siren-pytorch: SirenWrapper fitting an image with a latent modulator (returns the fit loss)."""

import torch
from siren_pytorch import SirenNet, SirenWrapper


class LatentImage(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        net = SirenNet(dim_in=2, dim_hidden=16, dim_out=3, num_layers=2)
        self.wrapper = SirenWrapper(net, image_width=8, image_height=8, latent_dim=4)

    def forward(self, img, latent):
        return self.wrapper(img, latent=latent)


def make():
    torch.manual_seed(0)
    return LatentImage(), (torch.rand(1, 3, 8, 8), torch.randn(4))
