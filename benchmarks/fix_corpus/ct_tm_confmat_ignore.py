# spec: {"model": "ct_tm_confmat_ignore.py:ClassifierWithConfmat", "init": {"args": [10, 5]}, "inputs": [{"tensor": [24, 10]}, {"tensor": [24], "dtype": "int64", "init": "randint", "low": -1, "high": 5}]}
import torch
from torch import nn


def _multiclass_confusion_matrix_update(preds, target, num_classes, ignore_index=None):
    """torchmetrics' functional update: ignored targets are filtered out, then the
    (target, pred) pairs are mapped to one bin each and counted."""
    if ignore_index is not None:
        idx = target != ignore_index
        preds = preds[idx]
        target = target[idx]
    unique_mapping = (target * num_classes + preds).to(torch.long)
    bins = torch.bincount(unique_mapping, minlength=num_classes**2)
    return bins.reshape(num_classes, num_classes)


class ClassifierWithConfmat(nn.Module):
    def __init__(self, dim, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.fc = nn.Linear(dim, num_classes)

    def forward(self, x, target):
        logits = self.fc(x)
        confmat = _multiclass_confusion_matrix_update(
            logits.argmax(-1), target, self.num_classes, ignore_index=-1
        )
        recall = confmat.diag().float() / confmat.sum(1).clamp(min=1)
        return logits, recall.mean()
