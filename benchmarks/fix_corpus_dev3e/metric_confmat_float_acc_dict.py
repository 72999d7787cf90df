# spec: {"model": "metric_confmat_float_acc_dict.py:ClassifierWithMetrics", "init": {"args": [8, 3]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 3}]}
import torch
from torch import nn


class ClassifierWithMetrics(nn.Module):
    """Classifier accumulating a confusion matrix buffer in forward and reporting per-class
    recall in a dict of Python floats for the logger."""

    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.register_buffer("confmat", torch.zeros(classes, classes, dtype=torch.long))
        self.classes = classes
        self.last_metrics = {}

    def forward(self, x, target):
        logits = self.fc(x)
        pred = logits.argmax(-1)
        self.confmat += torch.bincount(target * self.classes + pred, minlength=self.classes**2).view(
            self.classes, self.classes
        )
        recall = self.confmat.diag() / self.confmat.sum(1).clamp(min=1)
        self.last_metrics = {f"recall_{c}": float(r) for c, r in enumerate(recall)}
        return nn.functional.cross_entropy(logits, target)
