"""zuko: a neural spline flow's log-density in forward."""

import torch
import zuko


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.flow = zuko.flows.NSF(features=3, context=0, transforms=2, hidden_features=(16,))

    def forward(self, x):
        return self.flow().log_prob(x)


def make():
    return Model(), (torch.randn(5, 3),)
