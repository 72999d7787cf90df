"""nflows: affine coupling layers with an activation normalisation, forward and inverse."""

import torch
from nflows.nn.nets import ResidualNet
from nflows.transforms.coupling import AdditiveCouplingTransform, AffineCouplingTransform
from nflows.transforms.normalization import ActNorm
from nflows.utils.torchutils import create_mid_split_binary_mask


def net(i, o):
    return ResidualNet(i, o, hidden_features=8, num_blocks=1)


class Coupling(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        mask = create_mid_split_binary_mask(4)
        self.a = AffineCouplingTransform(mask, net)
        self.b = AdditiveCouplingTransform(1 - mask, net)
        self.norm = ActNorm(4)

    def forward(self, x):
        z, lad = self.a(x)
        z, lad2 = self.b(z)
        z, lad3 = self.norm(z)
        back, _ = self.a.inverse(z)
        return z, lad + lad2 + lad3, back


def make():
    torch.manual_seed(0)
    return Coupling(), (torch.randn(6, 4),)
