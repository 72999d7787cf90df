"""nflows: a masked autoregressive flow (affine MADE, reversed permutation, LU linear) scoring data."""

import torch
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.transforms.autoregressive import MaskedAffineAutoregressiveTransform
from nflows.transforms.base import CompositeTransform
from nflows.transforms.lu import LULinear
from nflows.transforms.permutations import ReversePermutation


class Density(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        transform = CompositeTransform(
            [
                MaskedAffineAutoregressiveTransform(features=3, hidden_features=8),
                ReversePermutation(features=3),
                LULinear(3),
            ]
        )
        self.flow = Flow(transform, StandardNormal([3]))

    def forward(self, x):
        return self.flow.log_prob(x)


def make():
    torch.manual_seed(0)
    return Density(), (torch.randn(5, 3),)
