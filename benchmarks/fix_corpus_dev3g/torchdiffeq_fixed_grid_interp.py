# spec: {"model": "torchdiffeq_fixed_grid_interp.py:MidpointODE", "init": {"args": [6, 4]}, "inputs": [{"tensor": [3, 6]}]}
import torch
from torch import nn


# vendored from torchdiffeq 0.2.5 torchdiffeq/_impl/solvers.py (FixedGridODESolver)
class FixedGridODESolver:
    order = 2

    def __init__(self, func, y0, step_size):
        self.func = func
        self.y0 = y0
        self.step_size = step_size

    def _step_func(self, func, t0, dt, t1, y0):
        half_dt = 0.5 * dt
        f0 = func(t0, y0)
        y_mid = y0 + f0 * half_dt
        return dt * func(t0 + half_dt, y_mid), f0

    def _grid_constructor(self, t):
        start_time = t[0]
        end_time = t[-1]

        niters = torch.ceil((end_time - start_time) / self.step_size + 1).item()
        t_infer = torch.arange(0, niters, dtype=t.dtype, device=t.device) * self.step_size + start_time
        t_infer[-1] = t[-1]

        return t_infer

    def integrate(self, t):
        time_grid = self._grid_constructor(t)
        assert time_grid[0] == t[0] and time_grid[-1] == t[-1]

        solution = torch.empty(len(t), *self.y0.shape, dtype=self.y0.dtype, device=self.y0.device)
        solution[0] = self.y0

        j = 1
        y0 = self.y0
        for t0, t1 in zip(time_grid[:-1], time_grid[1:]):
            dt = t1 - t0
            dy, f0 = self._step_func(self.func, t0, dt, t1, y0)
            y1 = y0 + dy

            while j < len(t) and t1 >= t[j]:
                solution[j] = self._linear_interp(t0, t1, y0, y1, t[j])
                j += 1
            y0 = y1

        return solution

    def _linear_interp(self, t0, t1, y0, y1, t):
        if t == t0:
            return y0
        if t == t1:
            return y1
        slope = (t - t0) / (t1 - t0)
        return y0 + slope * (y1 - y0)


class MidpointODE(nn.Module):
    def __init__(self, dim, num_times):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))
        self.register_buffer("t", torch.linspace(0.0, 1.0, num_times))

    def forward(self, y0):
        solver = FixedGridODESolver(lambda t, y: self.net(y), y0, step_size=0.25)
        return solver.integrate(self.t)[-1]
