import functools

import torch
from torch import nn


def checked(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out

    return wrapper


class Mixer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)

    @checked
    def forward(self, x: torch.Tensor, gate=None) -> torch.Tensor:
        y = self.lin(x)
        if gate is not None:
            y = y * gate
        return y


class Pipeline(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mixers = nn.ModuleList([Mixer() for _ in range(2)])

    def forward(self, x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
        for i, m in enumerate(self.mixers):
            print("mixer", i)
            if i == 0:
                x = m(x, gate=gate)
            else:
                x = m(x)
        return x
