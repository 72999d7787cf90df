# spec: {"model": "lib_nflows_logprob_kw.py:FlowPrior", "inputs": [{"tensor": [8, 2]}, {"tensor": [8, 4]}]}
import torch
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.transforms.autoregressive import (
    MaskedPiecewiseRationalQuadraticAutoregressiveTransform,
)
from nflows.transforms.base import CompositeTransform
from nflows.transforms.permutations import ReversePermutation
from torch import nn


class FlowPrior(nn.Module):
    """nflows conditional spline flow (neural-spline-flows style); the density is read in a helper method with a keyword context."""

    def __init__(self, features=2, context=4):
        super().__init__()
        transforms = []
        for _ in range(2):
            transforms.append(ReversePermutation(features=features))
            transforms.append(
                MaskedPiecewiseRationalQuadraticAutoregressiveTransform(
                    features=features,
                    hidden_features=16,
                    context_features=context,
                    num_bins=4,
                    tails="linear",
                    tail_bound=3.0,
                )
            )
        self.flow = Flow(CompositeTransform(transforms), StandardNormal([features]))
        self.ctx_net = nn.Linear(context, context)

    def density(self, z, ctx):
        return self.flow.log_prob(z, context=ctx)

    def forward(self, z, cond):
        ctx = self.ctx_net(cond)
        return -self.density(z, ctx).mean()
