# spec: {"model": "torchdiffeq_optimal_step_size.py:HeunStepController", "init": {"args": [6]}, "inputs": [{"tensor": [4, 6]}, {"tensor": []}]}
import torch
from torch import nn


# vendored from torchdiffeq 0.2.5 torchdiffeq/_impl/misc.py
def _rms_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


def _compute_error_ratio(error_estimate, rtol, atol, y0, y1, norm):
    error_tol = atol + rtol * torch.max(y0.abs(), y1.abs())
    return norm(error_estimate / error_tol).abs()


@torch.no_grad()
def _optimal_step_size(last_step, error_ratio, safety, ifactor, dfactor, order):
    """Calculate the optimal size for the next step."""
    if error_ratio == 0:
        return last_step * ifactor
    if error_ratio < 1:
        dfactor = torch.ones((), dtype=last_step.dtype, device=last_step.device)
    error_ratio = error_ratio.type_as(last_step)
    exponent = torch.tensor(order, dtype=last_step.dtype, device=last_step.device).reciprocal()
    factor = torch.min(ifactor, torch.max(safety / error_ratio ** exponent, dfactor))
    return last_step * factor


class HeunStepController(nn.Module):
    def __init__(self, dim, rtol=1e-3, atol=1e-4):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(dim, 32), nn.Softplus(), nn.Linear(32, dim))
        self.rtol = rtol
        self.atol = atol
        self.register_buffer("safety", torch.tensor(0.9))
        self.register_buffer("ifactor", torch.tensor(10.0))
        self.register_buffer("dfactor", torch.tensor(0.2))

    def forward(self, y0, dt):
        k1 = self.f(y0)
        y_euler = y0 + dt * k1
        k2 = self.f(y_euler)
        y1 = y0 + 0.5 * dt * (k1 + k2)
        error_ratio = _compute_error_ratio(y1 - y_euler, self.rtol, self.atol, y0, y1, _rms_norm)
        next_dt = _optimal_step_size(dt, error_ratio, self.safety, self.ifactor, self.dfactor, 2)
        return y1, next_dt
