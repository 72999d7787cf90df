# spec: {"model": "lib_tm_metric_dict_loop.py:ClassifierWithMetrics", "inputs": [{"tensor": [16, 10]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 4}]}
import torch
from torch import nn
from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score


class ClassifierWithMetrics(nn.Module):
    """Lightning-style: a ModuleDict of torchmetrics Metric objects evaluated in a loop in forward."""

    def __init__(self, classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, classes))
        self.metrics = nn.ModuleDict(
            {
                "acc": MulticlassAccuracy(num_classes=classes),
                "f1": MulticlassF1Score(num_classes=classes, average="macro"),
            }
        )

    def forward(self, x, y):
        logits = self.net(x)
        loss = nn.functional.cross_entropy(logits, y)
        logs = {}
        for name, metric in self.metrics.items():
            logs[name] = metric(logits.argmax(-1), y)
        return loss, logs
