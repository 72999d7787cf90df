# spec: {"model": "torchdiffeq_rk4_python_step_size.py:NeuralODEBlock", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}, 0.25], "variants": [{"inputs": [{"tensor": [4, 8]}, 0.125]}, {"inputs": [{"tensor": [4, 8]}, 0.1]}]}
import torch
from torch import nn
from torchdiffeq._impl.misc import Perturb
from torchdiffeq._impl.rk_common import _one_third, _two_thirds

# vendored from torchdiffeq 0.2.5 torchdiffeq/_impl/rk_common.py
def rk4_alt_step_func(func, t0, dt, t1, y0, f0=None, perturb=False):
    k1 = f0
    if k1 is None:
        k1 = func(t0, y0, perturb=Perturb.NEXT if perturb else Perturb.NONE)
    k2 = func(t0 + dt * _one_third, y0 + dt * k1 * _one_third)
    k3 = func(t0 + dt * _two_thirds, y0 + dt * (k2 - k1 * _one_third))
    k4 = func(t1, y0 + dt * (k1 - k2 + k3), perturb=Perturb.PREV if perturb else Perturb.NONE)
    return (k1 + 3 * (k2 + k3) + k4) * dt * 0.125


class ODEFunc(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, dim))

    def forward(self, t, y, perturb=Perturb.NONE):
        return self.net(y) * (1.0 + t)


class NeuralODEBlock(nn.Module):
    def __init__(self, dim, num_steps=2):
        super().__init__()
        self.func = ODEFunc(dim)
        self.num_steps = num_steps

    def forward(self, y0, step_size):
        t0 = 0.0
        y = y0
        for _ in range(self.num_steps):
            t1 = t0 + step_size
            y = y + rk4_alt_step_func(self.func, t0, step_size, t1, y)
            t0 = t1
        return y
