# spec: {"model": "torchdiffeq_select_initial_step.py:AdaptiveODEBlock", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}]}
import torch
from torch import nn


# vendored from torchdiffeq 0.2.5 torchdiffeq/_impl/misc.py
def _rms_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


def _select_initial_step(func, t0, y0, order, rtol, atol, norm, f0=None):
    """Empirically select a good initial step."""

    dtype = y0.dtype
    device = y0.device
    t_dtype = t0.dtype
    t0 = t0.to(t_dtype)

    if f0 is None:
        f0 = func(t0, y0)

    scale = atol + torch.abs(y0) * rtol

    d0 = norm(y0 / scale).abs()
    d1 = norm(f0 / scale).abs()

    if d0 < 1e-5 or d1 < 1e-5:
        h0 = torch.tensor(1e-6, dtype=dtype, device=device)
    else:
        h0 = 0.01 * d0 / d1
    h0 = h0.abs()

    y1 = y0 + h0 * f0
    f1 = func(t0 + h0, y1)

    d2 = torch.abs(norm((f1 - f0) / scale) / h0)

    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = torch.max(torch.tensor(1e-6, dtype=dtype, device=device), h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1. / float(order + 1))
    h1 = h1.abs()

    return torch.min(100 * h0, h1).to(t_dtype)


class ODEFunc(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.Tanh(), nn.Linear(32, dim))

    def forward(self, t, y):
        return self.net(y)


class AdaptiveODEBlock(nn.Module):
    def __init__(self, dim, rtol=1e-3, atol=1e-4):
        super().__init__()
        self.odefunc = ODEFunc(dim)
        self.rtol = rtol
        self.atol = atol

    def forward(self, y0):
        t0 = torch.zeros((), dtype=y0.dtype, device=y0.device)
        dt = _select_initial_step(self.odefunc, t0, y0, 4, self.rtol, self.atol, _rms_norm)
        # one explicit Euler step of the chosen size
        return y0 + dt * self.odefunc(t0, y0)
