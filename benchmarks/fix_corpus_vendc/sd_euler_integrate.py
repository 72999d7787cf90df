# spec: {"model": "sd_euler_integrate.py:LatentSDEDecoder", "init": {"args": [4]}, "inputs": [{"tensor": [3, 4]}, {"tensor": [4], "data": [0.0, 0.3, 0.5, 1.0]}], "calls": 2}
import warnings
from typing import Tuple

import torch
from torch import Tensor, nn
from torchsde._core import adaptive_stepping


# vendored from torchsde 0.2.6 torchsde/_core/misc.py
def is_strictly_increasing(ts):
    return all(x < y for x, y in zip(ts[:-1], ts[1:]))


# vendored from torchsde 0.2.6 torchsde/_core/interp.py
def linear_interp(t0, y0, t1, y1, t):
    assert t0 <= t <= t1, f"Incorrect time order for linear interpolation: t0={t0}, t={t}, t1={t1}."
    y = (t1 - t) / (t1 - t0) * y0 + (t - t0) / (t1 - t0) * y1
    return y


class FixedNoiseBrownian(nn.Module):
    """Brownian increments from a fixed noise buffer (deterministic, for evaluation)."""

    def __init__(self, dim, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.register_buffer("w", torch.randn(dim, generator=g))

    def forward(self, ta, tb):
        return self.w * (tb - ta).abs().sqrt()


# vendored from torchsde 0.2.6 torchsde/_core/base_solver.py (BaseSDESolver.integrate)
# and torchsde/_core/methods/euler.py (Euler.step, diagonal noise)
class EulerSolver(nn.Module):
    def __init__(self, sde, bm, dt=0.1, adaptive=False, rtol=1e-5, atol=1e-4, dt_min=1e-5):
        super().__init__()
        self.sde = sde
        self.bm = bm
        self.dt = dt
        self.adaptive = adaptive
        self.rtol = rtol
        self.atol = atol
        self.dt_min = dt_min

    def step(self, t0, t1, y0, extra0):
        del extra0
        dt = t1 - t0
        I_k = self.bm(t0, t1)
        f, g_prod = self.sde.f_and_g_prod(t0, y0, I_k)
        y1 = y0 + f * dt + g_prod
        return y1, ()

    def integrate(self, y0: Tensor, ts: Tensor, extra0) -> Tuple[Tensor, tuple]:
        step_size = self.dt

        prev_t = curr_t = ts[0]
        prev_y = curr_y = y0
        curr_extra = extra0

        ys = [y0]
        prev_error_ratio = None

        for out_t in ts[1:]:
            while curr_t < out_t:
                next_t = min(curr_t + step_size, ts[-1])
                if self.adaptive:
                    # Take 1 full step.
                    next_y_full, _ = self.step(curr_t, next_t, curr_y, curr_extra)
                    # Take 2 half steps.
                    midpoint_t = 0.5 * (curr_t + next_t)
                    midpoint_y, midpoint_extra = self.step(curr_t, midpoint_t, curr_y, curr_extra)
                    next_y, next_extra = self.step(midpoint_t, next_t, midpoint_y, midpoint_extra)

                    # Estimate error based on difference between 1 full step and 2 half steps.
                    with torch.no_grad():
                        error_estimate = adaptive_stepping.compute_error(next_y_full, next_y, self.rtol, self.atol)
                        step_size, prev_error_ratio = adaptive_stepping.update_step_size(
                            error_estimate=error_estimate,
                            prev_step_size=step_size,
                            prev_error_ratio=prev_error_ratio
                        )

                    if step_size < self.dt_min:
                        warnings.warn("Hitting minimum allowed step size in adaptive time-stepping.")
                        step_size = self.dt_min
                        prev_error_ratio = None

                    # Accept step.
                    if error_estimate <= 1 or step_size <= self.dt_min:
                        prev_t, prev_y = curr_t, curr_y
                        curr_t, curr_y, curr_extra = next_t, next_y, next_extra
                else:
                    prev_t, prev_y = curr_t, curr_y
                    curr_y, curr_extra = self.step(curr_t, next_t, curr_y, curr_extra)
                    curr_t = next_t
            ys.append(linear_interp(t0=prev_t, y0=prev_y, t1=curr_t, y1=curr_y, t=out_t))

        return torch.stack(ys, dim=0), curr_extra


class DiagonalSDE(nn.Module):
    noise_type = "diagonal"
    sde_type = "ito"

    def __init__(self, dim):
        super().__init__()
        self.drift = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.diffusion = nn.Linear(dim, dim)

    def f_and_g_prod(self, t, y, v):
        return self.drift(y), torch.sigmoid(self.diffusion(y)) * v


class LatentSDEDecoder(nn.Module):
    """Decodes a latent state along the observation times with an Euler-Maruyama solve (torchsde style)."""

    def __init__(self, dim):
        super().__init__()
        self.sde = DiagonalSDE(dim)
        self.solver = EulerSolver(self.sde, FixedNoiseBrownian(dim), dt=0.25)
        self.readout = nn.Linear(dim, 1)

    def forward(self, z0, ts):
        if not is_strictly_increasing(ts):
            raise ValueError("Evaluation times `ts` must be strictly increasing.")
        ys, _ = self.solver.integrate(z0, ts, ())
        return self.readout(ys)
