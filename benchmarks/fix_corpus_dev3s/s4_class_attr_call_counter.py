# spec: {"model": "s4_class_attr_call_counter.py:Tracker", "init": {"args": [8]}, "inputs": [{"tensor": [2, 8]}], "calls": 3}
from torch import nn


class Tracker(nn.Module):
    """Counts forward calls on the class (shared by every instance), for a profiling report."""

    num_calls = 0

    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        Tracker.num_calls += 1
        scale = 1.0 if Tracker.num_calls < 100 else 0.5
        return self.fc(x) * scale
