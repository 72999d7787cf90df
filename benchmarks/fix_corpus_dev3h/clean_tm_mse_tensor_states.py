# spec: {"model": "clean_tm_mse_tensor_states.py:EvalStep", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, {"tensor": [4, 1]}], "calls": 3}
import torch
from torch import Tensor, nn
from torchmetrics.utilities.checks import _check_same_shape

# vendored from torchmetrics 1.9.0 torchmetrics/functional/regression/mse.py
def _mean_squared_error_update(preds: Tensor, target: Tensor, num_outputs: int) -> tuple[Tensor, int]:
    _check_same_shape(preds, target)
    if num_outputs == 1:
        preds = preds.view(-1)
        target = target.view(-1)
    diff = preds - target
    sum_squared_error = torch.sum(diff * diff, dim=0)
    return sum_squared_error, target.shape[0]


class EvalStep(nn.Module):
    def __init__(self, dim, num_outputs=1):
        super().__init__()
        self.head = nn.Linear(dim, num_outputs)
        self.num_outputs = num_outputs
        self.register_buffer("sum_squared_error", torch.zeros(num_outputs))
        self.register_buffer("total", torch.tensor(0))

    def forward(self, x, target):
        preds = self.head(x)
        sum_squared_error, num_obs = _mean_squared_error_update(preds, target, num_outputs=self.num_outputs)
        self.sum_squared_error += sum_squared_error
        self.total += num_obs
        return preds
