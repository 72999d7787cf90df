# spec: {"model": "nflows_maf_sample_logprob.py:MAFDensity", "init": {"args": [4]}, "inputs": [{"tensor": [8, 4]}]}
import torch
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.transforms.autoregressive import MaskedAffineAutoregressiveTransform
from nflows.transforms.base import CompositeTransform
from nflows.transforms.permutations import ReversePermutation
from torch import nn


class MAFDensity(nn.Module):
    """Masked autoregressive flow (nflows tutorial layout): log-likelihood of the batch plus a few samples."""

    def __init__(self, features, num_layers=3, n_samples=4):
        super().__init__()
        transforms = []
        for _ in range(num_layers):
            transforms.append(ReversePermutation(features=features))
            transforms.append(MaskedAffineAutoregressiveTransform(features=features, hidden_features=16))
        self.flow = Flow(CompositeTransform(transforms), StandardNormal(shape=[features]))
        self.n_samples = n_samples

    def forward(self, x):
        nll = -self.flow.log_prob(inputs=x).mean()
        samples = self.flow.sample(self.n_samples)
        return nll, samples
