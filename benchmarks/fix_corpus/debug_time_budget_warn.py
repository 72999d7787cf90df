# spec: {"model": "debug_time_budget_warn.py:BudgetedRefiner", "init": {"args": [16]}, "inputs": [{"tensor": [4, 16]}]}
import time
import warnings

from torch import nn


class BudgetedRefiner(nn.Module):
    """Iterative refinement that warns when it exceeds its latency budget (serving code)."""

    def __init__(self, dim, iters=3, budget_s=0.05):
        super().__init__()
        self.step = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.iters = iters
        self.budget_s = budget_s

    def forward(self, x):
        start = time.monotonic()
        for _ in range(self.iters):
            x = x + self.step(x)
        elapsed = time.monotonic() - start
        if elapsed > self.budget_s:
            warnings.warn(f"refiner took {elapsed * 1000:.1f} ms")
        return x
