"""nflows: a rational-quadratic spline coupling flow over a standard normal base."""

import torch
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.transforms.base import CompositeTransform
from nflows.transforms.coupling import PiecewiseRationalQuadraticCouplingTransform
from nflows.transforms.permutations import ReversePermutation
from nflows.nn.nets import ResidualNet


def net(cin, cout):
    return ResidualNet(cin, cout, hidden_features=16, num_blocks=1)


class SplineFlow(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        mask = torch.tensor([1, 0, 1, 0])
        self.flow = Flow(
            CompositeTransform(
                [
                    PiecewiseRationalQuadraticCouplingTransform(
                        mask, net, num_bins=4, tails="linear", tail_bound=3.0
                    ),
                    ReversePermutation(features=4),
                ]
            ),
            StandardNormal([4]),
        )

    def forward(self, x):
        return self.flow.log_prob(x)


def make():
    return SplineFlow(), (torch.randn(5, 4),)
