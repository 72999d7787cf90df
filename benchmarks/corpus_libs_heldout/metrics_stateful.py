"""torchmetrics: a stateful metric module updated inside forward, then computed."""

import torch
import torchmetrics


class Tracker(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(8, 5)
        self.acc = torchmetrics.Accuracy(task="multiclass", num_classes=5)
        self.mse = torchmetrics.MeanSquaredError()

    def forward(self, x, labels):
        logits = self.lin(x)
        self.acc.update(logits, labels)
        self.mse.update(logits.softmax(-1), torch.nn.functional.one_hot(labels, 5).float())
        return logits, self.acc.compute(), self.mse.compute()


SPEC = {
    "variants": [
        {"inputs": [{"tensor": [6, 8]}, {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
    ]
}


def make():
    return Tracker(), (torch.randn(4, 8), torch.tensor([0, 1, 2, 4]))
