# spec: {"model": "c4_nflows_maf.py:MAFDensity", "init": {"args": [4]}, "inputs": [{"tensor": [6, 4]}], "calls": 3}
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.transforms.autoregressive import MaskedAffineAutoregressiveTransform
from nflows.transforms.base import CompositeTransform
from nflows.transforms.permutations import ReversePermutation
from torch import nn


class MAFDensity(nn.Module):
    """A masked autoregressive flow from nflows (its README's example): MADE affine layers with
    reverse permutations between, a standard-normal base; ``log_prob`` as the forward."""

    def __init__(self, features, num_layers=2, hidden_features=16):
        super().__init__()
        transforms = []
        for _ in range(num_layers):
            transforms.append(ReversePermutation(features=features))
            transforms.append(MaskedAffineAutoregressiveTransform(features=features, hidden_features=hidden_features))
        self.flow = Flow(CompositeTransform(transforms), StandardNormal(shape=[features]))

    def forward(self, x):
        return self.flow.log_prob(inputs=x)
