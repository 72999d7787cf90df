# spec: {"model": "tm_average_precision_eval.py:RetrievalHeadWithAP", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12], "dtype": "int64", "data": [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0]}], "calls": 2}
from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def rank_zero_warn(message, category=UserWarning):
    import warnings

    warnings.warn(message, category)


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
            fps = torch.cumsum((1 - target) * weight, dim=0)[threshold_idxs]
        else:
            fps = 1 + threshold_idxs - tps

        return fps, tps, preds[threshold_idxs]


def _binary_precision_recall_curve_compute(state, thresholds: Optional[Tensor], pos_label: int = 1):
    """Compute the final pr-curve."""
    fps, tps, thresholds = _binary_clf_curve(state[0], state[1], pos_label=pos_label)
    precision = tps / (tps + fps)
    recall = tps / tps[-1]

    if (state[1] == 0).all():  # all labels are negative, recall is undefined
        rank_zero_warn(
            "No positive samples found in target, recall is undefined. Setting recall to one for all thresholds.",
            UserWarning,
        )
        recall = torch.ones_like(recall)

    # need to call reversed explicitly, since including that to slice would
    # introduce negative strides that are not yet supported in pytorch
    precision = torch.cat([precision.flip(0), torch.ones(1, dtype=precision.dtype, device=precision.device)])
    recall = torch.cat([recall.flip(0), torch.zeros(1, dtype=recall.dtype, device=recall.device)])
    thresholds = thresholds.flip(0).detach().clone()
    return precision, recall, thresholds


# vendored from torchmetrics 1.9.0 torchmetrics/functional/classification/average_precision.py
def _binary_average_precision_compute(state, thresholds: Optional[Tensor]) -> Tensor:
    precision, recall, _ = _binary_precision_recall_curve_compute(state, thresholds)
    precision = torch.where(torch.isnan(precision), torch.zeros_like(precision), precision)
    recall = torch.where(torch.isnan(recall), torch.zeros_like(recall), recall)
    return -torch.sum((recall[1:] - recall[:-1]) * precision[:-1])


class RetrievalHeadWithAP(nn.Module):
    """A relevance head whose eval step returns the batch's average precision over its sigmoid scores."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, 1)

    def forward(self, x, labels):
        probs = torch.sigmoid(self.proj(x).squeeze(-1))
        ap = _binary_average_precision_compute((probs.detach(), labels), None)
        return F.binary_cross_entropy(probs, labels.float()), ap
