# spec: {"model": "tm_binary_clf_curve_auc.py:ScorerWithAUROC", "init": {"args": [8]}, "inputs": [{"tensor": [16, 8]}, {"tensor": [16], "dtype": "int64", "init": "randint", "low": 0, "high": 2}]}
from typing import Optional, Union

import torch
import torch.nn.functional as F
from torch import Tensor, nn


# vendored from torchmetrics 1.9.0 torchmetrics/utilities/data.py
def _cumsum(x: Tensor, dim: Optional[int] = 0, dtype: Optional[torch.dtype] = None) -> Tensor:
    return x.cumsum(dim=dim, dtype=dtype)


# vendored from torchmetrics 1.9.0 torchmetrics/functional/classification/precision_recall_curve.py
def _binary_clf_curve(
    preds: Tensor,
    target: Tensor,
    sample_weights: Optional[Union[Tensor, list[float]]] = None,
    pos_label: int = 1,
) -> tuple[Tensor, Tensor, Tensor]:
    """Calculate the TPs and false positives for all unique thresholds in the preds tensor."""
    with torch.no_grad():
        if sample_weights is not None and not isinstance(sample_weights, Tensor):
            sample_weights = torch.tensor(sample_weights, device=preds.device, dtype=torch.float)

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
        tps = _cumsum(target * weight, dim=0)[threshold_idxs]

        if sample_weights is not None:
            fps = _cumsum((1 - target) * weight, dim=0)[threshold_idxs]
        else:
            fps = 1 + threshold_idxs - tps

        return fps, tps, preds[threshold_idxs]


# vendored from torchmetrics 1.9.0 torchmetrics/utilities/compute.py
def _auc_compute_without_check(x: Tensor, y: Tensor, direction: float, axis: int = -1) -> Tensor:
    """Compute area under the curve using the trapezoidal rule."""
    with torch.no_grad():
        auc_score: Tensor = torch.trapz(y, x, dim=axis) * direction
    return auc_score


class ScorerWithAUROC(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, 1))

    def forward(self, x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
        scores = self.proj(x).squeeze(-1).sigmoid()
        fps, tps, _ = _binary_clf_curve(scores, target)
        fpr = fps / fps[-1].clamp(min=1)
        tpr = tps / tps[-1].clamp(min=1)
        return scores, _auc_compute_without_check(fpr, tpr, 1.0)
