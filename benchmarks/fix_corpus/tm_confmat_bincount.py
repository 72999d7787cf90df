# spec: {"model": "tm_confmat_bincount.py:ConfusionMatrixHead", "init": {"args": [8, 5]}, "inputs": [{"tensor": [16, 8], "init": "randn"}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 5}]}
import torch
from torch import nn


class ConfusionMatrixHead(nn.Module):
    """A classifier that also returns its multiclass confusion matrix and balanced accuracy,
    computed the torchmetrics way: `target * num_classes + preds` mapped to one bin each and
    counted with `bincount(..., minlength=num_classes ** 2)`."""

    def __init__(self, dim, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.fc = nn.Linear(dim, num_classes)

    def forward(self, x, target):
        logits = self.fc(x)
        preds = logits.argmax(dim=-1)
        unique_mapping = (target.view(-1) * self.num_classes + preds.view(-1)).to(torch.long)
        bins = torch.bincount(unique_mapping, minlength=self.num_classes**2)
        confmat = bins.reshape(self.num_classes, self.num_classes)
        recall = confmat.diag().float() / confmat.sum(1).clamp(min=1)
        return logits, confmat, recall.mean()
