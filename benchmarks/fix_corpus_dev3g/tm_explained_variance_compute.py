# spec: {"model": "tm_explained_variance_compute.py:ForecastHead", "init": {"args": [8, 4]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [10, 4]}]}
from collections.abc import Sequence
from typing import Literal, Union

import torch
from torch import Tensor, nn


# vendored from torchmetrics 1.9.0 torchmetrics/functional/regression/explained_variance.py
def _explained_variance_update(preds: Tensor, target: Tensor) -> tuple[int, Tensor, Tensor, Tensor, Tensor]:
    """Update and returns variables required to compute Explained Variance."""
    num_obs = preds.shape[0]
    sum_error = torch.sum(target - preds, dim=0)
    diff = target - preds
    sum_squared_error = torch.sum(diff * diff, dim=0)

    sum_target = torch.sum(target, dim=0)
    sum_squared_target = torch.sum(target * target, dim=0)

    return num_obs, sum_error, sum_squared_error, sum_target, sum_squared_target


def _explained_variance_compute(
    num_obs: Union[int, Tensor],
    sum_error: Tensor,
    sum_squared_error: Tensor,
    sum_target: Tensor,
    sum_squared_target: Tensor,
    multioutput: Literal["raw_values", "uniform_average", "variance_weighted"] = "uniform_average",
) -> Union[Tensor, Sequence[Tensor]]:
    """Compute Explained Variance."""
    diff_avg = sum_error / num_obs
    numerator = sum_squared_error / num_obs - (diff_avg * diff_avg)

    target_avg = sum_target / num_obs
    denominator = sum_squared_target / num_obs - (target_avg * target_avg)

    # Take care of division by zero
    nonzero_numerator = numerator != 0
    nonzero_denominator = denominator != 0
    valid_score = nonzero_numerator & nonzero_denominator
    output_scores = torch.ones_like(diff_avg)
    output_scores[valid_score] = 1.0 - (numerator[valid_score] / denominator[valid_score])
    output_scores[nonzero_numerator & ~nonzero_denominator] = 0.0

    # Decide what to do in multioutput case
    # Todo: allow user to pass in tensor with weights
    if multioutput == "raw_values":
        return output_scores
    if multioutput == "uniform_average":
        return torch.mean(output_scores)
    denom_sum = torch.sum(denominator)
    return torch.sum(denominator / denom_sum * output_scores)


class ForecastHead(nn.Module):
    def __init__(self, in_features: int, horizon: int) -> None:
        super().__init__()
        self.horizon = horizon
        self.proj = nn.Linear(in_features, horizon)

    def forward(self, x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
        preds = self.proj(x)
        ev = _explained_variance_compute(*_explained_variance_update(preds, target))
        return preds, ev
