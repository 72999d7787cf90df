# spec: {"model": "nflows_leaky_relu_transform.py:LeakyFlow", "init": {"args": [6, 3]}, "inputs": [{"tensor": [4, 6]}]}
import torch
import torch.nn.functional as F
from torch import nn


# vendored from nflows 0.14 nflows/utils/torchutils.py
def sum_except_batch(x, num_batch_dims=1):
    """Sums all elements of `x` except for the first `num_batch_dims` dimensions."""
    reduce_dims = list(range(num_batch_dims, x.ndimension()))
    return torch.sum(x, dim=reduce_dims)


# vendored from nflows 0.14 nflows/transforms/nonlinearities.py
class LeakyReLU(nn.Module):
    def __init__(self, negative_slope=1e-2):
        if negative_slope <= 0:
            raise ValueError("Slope must be positive.")
        super().__init__()
        self.negative_slope = negative_slope
        self.log_negative_slope = torch.log(torch.as_tensor(self.negative_slope))

    def forward(self, inputs, context=None):
        outputs = F.leaky_relu(inputs, negative_slope=self.negative_slope)
        mask = (inputs < 0).type(torch.Tensor)
        logabsdet = self.log_negative_slope * mask
        logabsdet = sum_except_batch(logabsdet, num_batch_dims=1)
        return outputs, logabsdet


class LeakyFlow(nn.Module):
    def __init__(self, features, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(features, features) for _ in range(num_layers)])
        self.activations = nn.ModuleList([LeakyReLU(0.1) for _ in range(num_layers)])

    def forward(self, x):
        total_logabsdet = x.new_zeros(x.shape[0])
        for linear, act in zip(self.linears, self.activations):
            x = linear(x)
            x, logabsdet = act(x)
            total_logabsdet = total_logabsdet + logabsdet
        return x, total_logabsdet
