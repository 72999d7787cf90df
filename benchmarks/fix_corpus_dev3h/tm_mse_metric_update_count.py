# spec: {"model": "tm_mse_metric_update_count.py:EvalStep", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4, 1]}], "calls": 3}
import torch
from torch import Tensor, nn
from torchmetrics import Metric
from torchmetrics.utilities.checks import _check_same_shape
from torchmetrics.functional.regression.mse import _mean_squared_error_compute

# vendored from torchmetrics 1.9.0 torchmetrics/functional/regression/mse.py
def _mean_squared_error_update(preds: Tensor, target: Tensor, num_outputs: int) -> tuple[Tensor, int]:
    _check_same_shape(preds, target)
    if num_outputs == 1:
        preds = preds.view(-1)
        target = target.view(-1)
    diff = preds - target
    sum_squared_error = torch.sum(diff * diff, dim=0)
    return sum_squared_error, target.shape[0]


class MeanSquaredError(Metric):
    is_differentiable = True
    higher_is_better = False
    full_state_update = False

    def __init__(self, num_outputs=1, **kwargs):
        super().__init__(**kwargs)
        self.add_state("sum_squared_error", default=torch.zeros(num_outputs), dist_reduce_fx="sum")
        self.add_state("total", default=torch.tensor(0), dist_reduce_fx="sum")
        self.num_outputs = num_outputs

    # vendored from torchmetrics 1.9.0 torchmetrics/regression/mse.py
    def update(self, preds: Tensor, target: Tensor) -> None:
        sum_squared_error, num_obs = _mean_squared_error_update(preds, target, num_outputs=self.num_outputs)

        self.sum_squared_error += sum_squared_error
        self.total += num_obs

    # vendored from torchmetrics 1.9.0 torchmetrics/regression/mse.py
    def compute(self) -> Tensor:
        return _mean_squared_error_compute(self.sum_squared_error, self.total, squared=self.squared)


class EvalStep(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.head = nn.Linear(dim, 1)
        self.mse = MeanSquaredError()

    def forward(self, x, target):
        preds = self.head(x)
        self.mse.update(preds, target)
        return preds
