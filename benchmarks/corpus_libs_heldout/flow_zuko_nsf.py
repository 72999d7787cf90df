"""zuko: a conditional neural spline flow's log density and a reparameterised sample."""

import torch
import zuko


class Density(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.flow = zuko.flows.NSF(features=3, context=2, transforms=2, hidden_features=(16, 16))

    def forward(self, x, c):
        dist = self.flow(c)
        return dist.log_prob(x), dist.rsample()


def make():
    return Density(), (torch.randn(4, 3), torch.randn(4, 2))
