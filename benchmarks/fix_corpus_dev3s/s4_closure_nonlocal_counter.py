# spec: {"model": "s4_closure_nonlocal_counter.py:Model", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3}
from torch import nn


def make_step_counter():
    step = 0

    def tick():
        nonlocal step
        step += 1
        return step

    return tick


class Model(nn.Module):
    """A training wrapper whose warmup factor comes from a closure counter made in `__init__`."""

    def __init__(self, dim, warmup=10):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.tick = make_step_counter()
        self.warmup = warmup

    def forward(self, x):
        step = self.tick()
        return self.fc(x) * min(1.0, step / self.warmup)
