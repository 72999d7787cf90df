# spec: {"model": "tm_pearson_corrcoef_compute.py:RegressorWithPearson", "init": {"args": [8, 2]}, "inputs": [{"tensor": [12, 8]}, {"tensor": [12, 2]}]}
import math

import torch
from torch import Tensor, nn


def rank_zero_warn(message: str, category: type = UserWarning) -> None:
    import warnings

    warnings.warn(message, category)


# vendored from torchmetrics 1.9.0 torchmetrics/functional/regression/pearson.py
def _pearson_corrcoef_compute(
    max_abs_dev_x: Tensor,
    max_abs_dev_y: Tensor,
    var_x: Tensor,
    var_y: Tensor,
    corr_xy: Tensor,
    nb: Tensor,
) -> Tensor:
    """Compute the final pearson correlation based on accumulated statistics."""
    # prevent overwrite the inputs
    var_x = var_x / (nb - 1)
    var_y = var_y / (nb - 1)
    corr_xy = corr_xy / (nb - 1)
    # if var_x, var_y is float16 and on cpu, make it bfloat16 as sqrt is not supported for float16
    # on cpu, remove this after https://github.com/pytorch/pytorch/issues/54774 is fixed
    if var_x.dtype == torch.float16 and var_x.device == torch.device("cpu"):
        var_x = var_x.bfloat16()
        var_y = var_y.bfloat16()
    var_x = var_x * torch.pow(max_abs_dev_x, -2)
    var_y = var_y * torch.pow(max_abs_dev_y, -2)
    corr_xy = corr_xy / (max_abs_dev_x * max_abs_dev_y)
    bound = math.sqrt(torch.finfo(var_x.dtype).eps)
    if (
        (var_x < bound).any()
        or (var_y < bound).any()
        or ~torch.isfinite(var_x).any()
        or ~torch.isfinite(var_y).any()
        or ~torch.isfinite(corr_xy).any()
    ):
        rank_zero_warn(
            "The variance of predictions or target is close to zero. Setting the correlation coefficient to nan.",
            UserWarning,
        )
    zero_var_mask = (
        (var_x < bound) | (var_y < bound) | ~torch.isfinite(var_x) | ~torch.isfinite(var_y) | ~torch.isfinite(corr_xy)
    )
    corrcoef = torch.full_like(corr_xy, float("nan"), device=corr_xy.device, dtype=corr_xy.dtype)
    valid_mask = ~zero_var_mask
    if valid_mask.any():
        corrcoef[valid_mask] = (
            (corr_xy[valid_mask] / (var_x[valid_mask] * var_y[valid_mask]).sqrt()).squeeze().to(corrcoef.dtype)
        )
        corrcoef = torch.clamp(corrcoef, -1.0, 1.0)
    return corrcoef.squeeze()


class RegressorWithPearson(nn.Module):
    def __init__(self, in_features: int, num_outputs: int) -> None:
        super().__init__()
        self.head = nn.Linear(in_features, num_outputs)

    def forward(self, x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
        preds = self.head(x)
        nb = torch.tensor(preds.shape[0], dtype=preds.dtype)
        mx, my = preds.mean(0), target.mean(0)
        var_x = ((preds - mx) ** 2).sum(0)
        var_y = ((target - my) ** 2).sum(0)
        corr_xy = ((preds - mx) * (target - my)).sum(0)
        max_abs_dev_x = (preds - mx).abs().max(0).values
        max_abs_dev_y = (target - my).abs().max(0).values
        corr = _pearson_corrcoef_compute(max_abs_dev_x, max_abs_dev_y, var_x, var_y, corr_xy, nb)
        return preds, corr
