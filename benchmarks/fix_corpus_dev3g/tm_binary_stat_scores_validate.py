# spec: {"model": "tm_binary_stat_scores_validate.py:BinaryHeadWithAccuracy", "init": {"args": [8]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
from typing import Literal, Optional

import torch
from torch import Tensor, nn


# vendored from torchmetrics 1.9.0 torchmetrics/utilities/checks.py
def _check_same_shape(preds: Tensor, target: Tensor) -> None:
    """Check that predictions and target have the same shape, else raise error."""
    if preds.shape != target.shape:
        raise RuntimeError(
            f"Predictions and targets are expected to have the same shape, but got {preds.shape} and {target.shape}."
        )


# vendored from torchmetrics 1.9.0 torchmetrics/functional/classification/stat_scores.py
def _binary_stat_scores_tensor_validation(
    preds: Tensor,
    target: Tensor,
    multidim_average: Literal["global", "samplewise"] = "global",
    ignore_index: Optional[int] = None,
) -> None:
    """Validate tensor input."""
    # Check that they have same shape
    _check_same_shape(preds, target)

    # Check that target only contains [0,1] values or value in ignore_index
    unique_values = torch.unique(target, dim=None)
    if ignore_index is None:
        check = torch.any((unique_values != 0) & (unique_values != 1))
    else:
        check = torch.any((unique_values != 0) & (unique_values != 1) & (unique_values != ignore_index))
    if check:
        raise RuntimeError(
            f"Detected the following values in `target`: {unique_values} but expected only"
            f" the following values {[0, 1] if ignore_index is None else [ignore_index]}."
        )

    # If preds is label tensor, also check that it only contains [0,1] values
    if not preds.is_floating_point():
        unique_values = torch.unique(preds, dim=None)
        if torch.any((unique_values != 0) & (unique_values != 1)):
            raise RuntimeError(
                f"Detected the following values in `preds`: {unique_values} but expected only"
                " the following values [0,1] since `preds` is a label tensor."
            )

    if multidim_average != "global" and preds.ndim < 2:
        raise ValueError("Expected input to be at least 2D when multidim_average is set to `samplewise`")


def _binary_stat_scores_update(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Compute the statistics."""
    tp = ((target == preds) & (target == 1)).sum().squeeze()
    fn = ((target != preds) & (target == 1)).sum().squeeze()
    fp = ((target != preds) & (target == 0)).sum().squeeze()
    tn = ((target == preds) & (target == 0)).sum().squeeze()
    return tp, fp, tn, fn


class BinaryHeadWithAccuracy(nn.Module):
    def __init__(self, in_features: int, threshold: float = 0.5, validate_args: bool = True) -> None:
        super().__init__()
        self.classifier = nn.Linear(in_features, 1)
        self.threshold = threshold
        self.validate_args = validate_args

    def forward(self, x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
        logits = self.classifier(x).squeeze(-1)
        preds = (logits.sigmoid() > self.threshold).long()
        if self.validate_args:
            _binary_stat_scores_tensor_validation(preds, target)
        tp, fp, tn, fn = _binary_stat_scores_update(preds, target)
        acc = (tp + tn).float() / (tp + fp + tn + fn)
        return logits, acc
