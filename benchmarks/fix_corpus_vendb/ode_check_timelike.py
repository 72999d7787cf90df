# spec: {"model": "ode_check_timelike.py:LatentODEDecoder", "init": {"args": [4]}, "inputs": [{"tensor": [3, 4]}, {"tensor": [5], "data": [0.0, 0.25, 0.5, 0.75, 1.0]}]}
import torch
from torch import nn

# vendored from torchdiffeq 0.2.5 torchdiffeq/_impl/misc.py
# (_assert_floating, _check_timelike and the time normalisation of _check_inputs;
# the solver is a fixed-grid Euler loop as in torchdiffeq's fixed_grid.Euler)


def _assert_floating(name, t):
    if not torch.is_floating_point(t):
        raise TypeError("`{}` must be a floating point Tensor but is a {}".format(name, t.type()))


def _check_timelike(name, timelike, can_grad):
    assert isinstance(timelike, torch.Tensor), "{} must be a torch.Tensor".format(name)
    _assert_floating(name, timelike)
    assert timelike.ndimension() == 1, "{} must be one dimensional".format(name)
    if not can_grad:
        assert not timelike.requires_grad, "{} cannot require gradient".format(name)
    diff = timelike[1:] > timelike[:-1]
    assert diff.all() or (~diff).all(), "{} must be strictly increasing or decreasing".format(name)


class _ReverseFunc(nn.Module):
    def __init__(self, base_func, mul=1.0):
        super().__init__()
        self.base_func = base_func
        self.mul = mul

    def forward(self, t, y):
        return self.mul * self.base_func(-t, y)


class ODEFunc(nn.Module):
    def __init__(self, dim, hidden=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ELU(), nn.Linear(hidden, dim))

    def forward(self, t, y):
        return self.net(y)


class LatentODEDecoder(nn.Module):
    def __init__(self, latent_dim):
        super().__init__()
        self.func = ODEFunc(latent_dim)
        self.readout = nn.Linear(latent_dim, 2)

    def forward(self, z0, t):
        func = self.func

        # Normalise time
        _check_timelike("t", t, True)
        t_is_reversed = False
        if len(t) > 1 and t[0] > t[1]:
            t_is_reversed = True

        if t_is_reversed:
            t = -t
            func = _ReverseFunc(func, mul=-1.0)

        ys = [z0]
        y = z0
        for t0, t1 in zip(t[:-1], t[1:]):
            y = y + (t1 - t0) * func(t0, y)
            ys.append(y)
        return self.readout(torch.stack(ys, dim=0))
