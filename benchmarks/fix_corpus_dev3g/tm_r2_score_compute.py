# spec: {"model": "tm_r2_score_compute.py:MultiOutputRegressor", "init": {"args": [8, 3]}, "inputs": [{"tensor": [10, 8]}, {"tensor": [10, 3]}]}
from typing import Union

import torch
from torch import Tensor, nn


# vendored from torchmetrics 1.9.0 torchmetrics/functional/regression/r2.py
def _r2_score_update(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor, Tensor, int]:
    """Update and returns variables required to compute R2 score."""
    if preds.ndim > 2:
        raise ValueError(
            "Expected both prediction and target to be 1D or 2D tensors,"
            f" but received tensors with dimension {preds.shape}"
        )

    sum_obs = torch.sum(target, dim=0)
    sum_squared_obs = torch.sum(target * target, dim=0)
    residual = target - preds
    rss = torch.sum(residual * residual, dim=0)
    return sum_squared_obs, sum_obs, rss, target.size(0)


def _r2_score_compute(
    sum_squared_obs: Tensor,
    sum_obs: Tensor,
    rss: Tensor,
    num_obs: Union[int, Tensor],
    adjusted: int = 0,
    multioutput: str = "uniform_average",
) -> Tensor:
    """Compute R2 score."""
    if num_obs < 2:
        raise ValueError("Needs at least two samples to calculate r2 score.")

    mean_obs = sum_obs / num_obs
    tss = sum_squared_obs - sum_obs * mean_obs

    # Account for near constant targets
    cond_rss = ~torch.isclose(rss, torch.zeros_like(rss), atol=1e-4)
    cond_tss = ~torch.isclose(tss, torch.zeros_like(tss), atol=1e-4)
    cond = cond_rss & cond_tss

    raw_scores = torch.ones_like(rss)
    raw_scores[cond] = 1 - (rss[cond] / tss[cond])
    raw_scores[cond_rss & ~cond_tss] = 0.0

    if multioutput == "raw_values":
        r2 = raw_scores
    elif multioutput == "uniform_average":
        r2 = torch.mean(raw_scores)
    elif multioutput == "variance_weighted":
        tss_sum = torch.sum(tss)
        r2 = torch.sum(tss / tss_sum * raw_scores)
    else:
        raise ValueError(f"Argument `multioutput` must be either `raw_values`, `uniform_average` or `variance_weighted`.")

    return r2


class MultiOutputRegressor(nn.Module):
    def __init__(self, in_features: int, num_outputs: int) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_features, 32), nn.SiLU())
        self.head = nn.Linear(32, num_outputs)

    def forward(self, x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
        preds = self.head(self.backbone(x))
        sum_squared_obs, sum_obs, rss, num_obs = _r2_score_update(preds, target)
        return preds, _r2_score_compute(sum_squared_obs, sum_obs, rss, num_obs)
