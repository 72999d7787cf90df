# spec: {"model": "log_percent_format_acc.py:EvalHead", "init": {"args": [10, 3]}, "inputs": [{"tensor": [4, 10]}, {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
from torch import nn


class EvalHead(nn.Module):
    """Evaluation head that records accuracy as a %-formatted string (Python 2 era scripts)."""

    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.last = ""

    def forward(self, x, y):
        logits = self.fc(x)
        acc = (logits.argmax(-1) == y).float().mean()
        self.last = "acc %.3f" % acc
        return logits.log_softmax(-1)
