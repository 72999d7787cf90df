# spec: {"model": "tm_binary_auroc_eval.py:BinaryClassifierWithAUROC", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12], "dtype": "int64", "data": [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0]}], "calls": 2}
from typing import Literal, Optional

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def rank_zero_warn(message, category=UserWarning):
    import warnings

    warnings.warn(message, category)


# vendored from torchmetrics 1.9.0 torchmetrics/utilities/compute.py
def normalize_logits_if_needed(tensor: Tensor, normalization: Optional[Literal["sigmoid", "softmax"]]) -> Tensor:
    """Normalize logits if needed."""
    # if not specified, do nothing.
    if not normalization:
        return tensor
    # decrease sigmoid on cpu .
    if tensor.device == torch.device("cpu"):
        if not torch.all((tensor >= 0) * (tensor <= 1)):
            tensor = tensor.sigmoid() if normalization == "sigmoid" else torch.softmax(tensor, dim=1)
        return tensor

    # decrease device-host sync on device .
    condition = ((tensor < 0) | (tensor > 1)).any()
    return torch.where(
        condition,
        torch.sigmoid(tensor) if normalization == "sigmoid" else torch.softmax(tensor, dim=1),
        tensor,
    )


def _auc_compute_without_check(x: Tensor, y: Tensor, direction: float, axis: int = -1) -> Tensor:
    """Compute area under the curve using the trapezoidal rule."""
    with torch.no_grad():
        auc_score: Tensor = torch.trapz(y, x, dim=axis) * direction
    return auc_score


# vendored from torchmetrics 1.9.0 torchmetrics/functional/classification/precision_recall_curve.py
def _binary_clf_curve(preds: Tensor, target: Tensor, sample_weights=None, pos_label: int = 1):
    """Calculate the TPs and false positives for all unique thresholds in the preds tensor."""
    with torch.no_grad():
        # remove class dimension if necessary
        if preds.ndim > target.ndim:
            preds = preds[:, 0]
        desc_score_indices = torch.argsort(preds, descending=True)

        preds = preds[desc_score_indices]
        target = target[desc_score_indices]

        weight = sample_weights[desc_score_indices] if sample_weights is not None else 1.0

        # pred typically has many tied values. Here we extract
        # the indices associated with the distinct values. We also
        # concatenate a value for the end of the curve.
        distinct_value_indices = torch.where(preds[1:] - preds[:-1])[0]
        threshold_idxs = F.pad(distinct_value_indices, [0, 1], value=target.size(0) - 1)
        target = (target == pos_label).to(torch.long)
        tps = torch.cumsum(target * weight, dim=0)[threshold_idxs]

        if sample_weights is not None:
            # express fps as a cumsum to ensure fps is increasing even in
            # the presence of floating point errors
            fps = torch.cumsum((1 - target) * weight, dim=0)[threshold_idxs]
        else:
            fps = 1 + threshold_idxs - tps

        return fps, tps, preds[threshold_idxs]


def _binary_precision_recall_curve_format(preds: Tensor, target: Tensor, thresholds=None, ignore_index=None, normalization="sigmoid"):
    """Convert all input to the right format."""
    preds = preds.flatten()
    target = target.flatten()
    preds = normalize_logits_if_needed(preds, normalization)
    return preds, target, thresholds


# vendored from torchmetrics 1.9.0 torchmetrics/functional/classification/roc.py
def _binary_roc_compute(state, thresholds: Optional[Tensor], pos_label: int = 1):
    fps, tps, thres = _binary_clf_curve(preds=state[0], target=state[1], pos_label=pos_label)
    # Add an extra threshold position to make sure that the curve starts at (0, 0)
    tps = torch.cat([torch.zeros(1, dtype=tps.dtype, device=tps.device), tps])
    fps = torch.cat([torch.zeros(1, dtype=fps.dtype, device=fps.device), fps])
    thres = torch.cat([torch.ones(1, dtype=thres.dtype, device=thres.device), thres])

    if fps[-1] <= 0:
        rank_zero_warn(
            "No negative samples in targets, false positive value should be meaningless."
            " Returning zero tensor in false positive score",
            UserWarning,
        )
        fpr = torch.zeros_like(thres)
    else:
        fpr = fps / fps[-1]

    if tps[-1] <= 0:
        rank_zero_warn(
            "No positive samples in targets, true positive value should be meaningless."
            " Returning zero tensor in true positive score",
            UserWarning,
        )
        tpr = torch.zeros_like(thres)
    else:
        tpr = tps / tps[-1]

    return fpr, tpr, thres


# vendored from torchmetrics 1.9.0 torchmetrics/functional/classification/auroc.py
def _binary_auroc_compute(state, thresholds: Optional[Tensor], max_fpr: Optional[float] = None, pos_label: int = 1):
    fpr, tpr, _ = _binary_roc_compute(state, thresholds, pos_label)
    if max_fpr is None or max_fpr == 1 or fpr.sum() == 0 or tpr.sum() == 0:
        return _auc_compute_without_check(fpr, tpr, 1.0)
    raise NotImplementedError("partial AUC is not vendored here")


def binary_auroc(preds: Tensor, target: Tensor, max_fpr: Optional[float] = None, thresholds=None, ignore_index=None):
    preds, target, thresholds = _binary_precision_recall_curve_format(preds, target, thresholds, ignore_index)
    state = (preds, target)
    return _binary_auroc_compute(state, thresholds, max_fpr)


class BinaryClassifierWithAUROC(nn.Module):
    """A binary classifier's validation step: BCE loss plus the exact (unbinned) AUROC of the batch."""

    def __init__(self, dim=8):
        super().__init__()
        self.clf = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x, y):
        logits = self.clf(x).squeeze(-1)
        loss = F.binary_cross_entropy_with_logits(logits, y.float())
        return loss, binary_auroc(logits.detach(), y)
