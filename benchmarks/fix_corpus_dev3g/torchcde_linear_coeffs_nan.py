# spec: {"model": "torchcde_linear_coeffs_nan.py:NeuralCDEEncoder", "init": {"args": [3, 8]}, "inputs": [{"tensor": [2, 7, 3]}]}
import torch
from torch import nn


# vendored from torchcde 0.2.5 torchcde/misc.py
def validate_input_path(x, t):
    if not x.is_floating_point():
        raise ValueError("X must both be floating point.")

    if x.ndimension() < 2:
        raise ValueError("X must have at least two dimensions, corresponding to time and channels. It instead has "
                         "shape {}.".format(tuple(x.shape)))

    if t is None:
        t = torch.linspace(0, x.size(-2) - 1, x.size(-2), dtype=x.dtype, device=x.device)

    if not t.is_floating_point():
        raise ValueError("t must both be floating point.")
    if len(t.shape) != 1:
        raise ValueError("t must be one dimensional. It instead has shape {}.".format(tuple(t.shape)))
    prev_t_i = -float('inf')
    for t_i in t:
        if t_i <= prev_t_i:
            raise ValueError("t must be monotonically increasing.")
        prev_t_i = t_i

    if x.size(-2) != t.size(0):
        raise ValueError("The time dimension of X must equal the length of t. X has shape {} and t has shape {}, "
                         "corresponding to time dimensions of {} and {} respectively."
                         .format(tuple(x.shape), tuple(t.shape), x.size(-2), t.size(0)))

    if t.size(0) < 2:
        raise ValueError("Must have a time dimension of size at least 2. It instead has shape {}, corresponding to a "
                         "time dimension of size {}.".format(tuple(x.shape), t.size(0)))

    return t


# vendored from torchcde 0.2.5 torchcde/interpolation_linear.py
def linear_interpolation_coeffs(x, t=None):
    t = validate_input_path(x, t)

    if torch.isnan(x).any():
        # (torchcde fills the missing values by _linear_interpolation_coeffs_with_missing_values)
        x = torch.nan_to_num(x)
    return x


class NeuralCDEEncoder(nn.Module):
    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        self.initial = nn.Linear(input_channels, hidden_channels)
        self.func = nn.Sequential(nn.Linear(hidden_channels, hidden_channels * input_channels), nn.Tanh())
        self.input_channels = input_channels
        self.hidden_channels = hidden_channels

    def forward(self, x):
        coeffs = linear_interpolation_coeffs(x)
        dX = coeffs[:, 1:] - coeffs[:, :-1]
        z = self.initial(coeffs[:, 0])
        for i in range(dX.shape[1]):
            f = self.func(z).view(z.shape[0], self.hidden_channels, self.input_channels)
            z = z + (f @ dX[:, i].unsqueeze(-1)).squeeze(-1)
        return z
