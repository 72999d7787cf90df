"""torchmetrics: functional metrics computed in forward."""

import torch
from torchmetrics.functional import accuracy, mean_squared_error


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x, target):
        logits = self.head(x)
        acc = accuracy(logits, target, task="multiclass", num_classes=5)
        mse = mean_squared_error(logits.softmax(-1), torch.nn.functional.one_hot(target, 5).float())
        return logits, acc, mse


def make():
    return Model(), (torch.randn(6, 8), torch.randint(0, 5, (6,)))
