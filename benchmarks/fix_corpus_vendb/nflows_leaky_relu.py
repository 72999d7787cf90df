# spec: {"model": "nflows_leaky_relu.py:MaskedFlowStep", "init": {"args": [6]}, "inputs": [{"tensor": [8, 6]}]}
import torch
from torch import nn
from torch.nn import functional as F

# vendored from nflows 0.14 nflows/transforms/nonlinearities.py, nflows/transforms/base.py
# and nflows/utils/torchutils.py (LeakyReLU transform, CompositeTransform, sum_except_batch)


def is_nonnegative_int(x):
    return isinstance(x, int) and x >= 0


def sum_except_batch(x, num_batch_dims=1):
    """Sums all elements of `x` except for the first `num_batch_dims` dimensions."""
    if not is_nonnegative_int(num_batch_dims):
        raise TypeError("Number of batch dimensions must be a non-negative integer.")
    reduce_dims = list(range(num_batch_dims, x.ndimension()))
    return torch.sum(x, dim=reduce_dims)


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


class ActNorm(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(features))
        self.shift = nn.Parameter(torch.zeros(features))

    def forward(self, inputs, context=None):
        outputs = inputs * torch.exp(self.log_scale) + self.shift
        logabsdet = torch.sum(self.log_scale) * inputs.new_ones(inputs.shape[0])
        return outputs, logabsdet


class CompositeTransform(nn.Module):
    def __init__(self, transforms):
        super().__init__()
        self._transforms = nn.ModuleList(transforms)

    @staticmethod
    def _cascade(inputs, funcs, context):
        batch_size = inputs.shape[0]
        outputs = inputs
        total_logabsdet = inputs.new_zeros(batch_size)
        for func in funcs:
            outputs, logabsdet = func(outputs, context)
            total_logabsdet += logabsdet
        return outputs, total_logabsdet

    def forward(self, inputs, context=None):
        return self._cascade(inputs, self._transforms, context)


class MaskedFlowStep(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.transform = CompositeTransform([ActNorm(features), LeakyReLU(), ActNorm(features)])

    def forward(self, x):
        z, logabsdet = self.transform(self.linear(x))
        log_prob = -0.5 * (z**2).sum(-1) + logabsdet
        return z, log_prob
