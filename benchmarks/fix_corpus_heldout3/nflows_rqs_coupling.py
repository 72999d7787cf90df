# spec: {"model": "nflows_rqs_coupling.py:SplineFlowDensity", "init": {"args": [4]}, "inputs": [{"tensor": [16, 4], "init": "uniform", "low": -2.0, "high": 2.0}]}
import torch
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.nn.nets import ResidualNet
from nflows.transforms.base import CompositeTransform
from nflows.transforms.coupling import PiecewiseRationalQuadraticCouplingTransform
from nflows.transforms.permutations import ReversePermutation
from torch import nn


def _net(in_features, out_features):
    return ResidualNet(in_features, out_features, hidden_features=32, num_blocks=1)


class SplineFlowDensity(nn.Module):
    """Neural spline flow (nflows): rational-quadratic coupling layers; forward returns the mean NLL."""

    def __init__(self, dim, layers=2):
        super().__init__()
        mask = torch.arange(dim) % 2
        transforms = []
        for _ in range(layers):
            transforms.append(
                PiecewiseRationalQuadraticCouplingTransform(
                    mask, _net, num_bins=4, tails="linear", tail_bound=3.0
                )
            )
            transforms.append(ReversePermutation(dim))
        self.flow = Flow(CompositeTransform(transforms), StandardNormal([dim]))

    def forward(self, x):
        return -self.flow.log_prob(x).mean()
