"""nflows: a RealNVP flow's log-density in forward."""

import torch
from nflows.flows.realnvp import SimpleRealNVP


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.flow = SimpleRealNVP(features=4, hidden_features=16, num_layers=2, num_blocks_per_layer=1)

    def forward(self, x):
        return self.flow.log_prob(x)


def make():
    return Model(), (torch.randn(5, 4),)
