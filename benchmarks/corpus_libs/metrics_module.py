"""torchmetrics: a metric module updated in forward."""

import torch
import torchmetrics


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(8, 1)
        self.mse = torchmetrics.MeanSquaredError()

    def forward(self, x, y):
        pred = self.head(x).squeeze(-1)
        self.mse.update(pred, y)
        return pred


def make():
    return Model(), (torch.randn(6, 8), torch.randn(6))
